package io.faultline.format;

import java.util.Arrays;

/**
 * A growable byte column of a block being written: raw bytes and LEB128 varints (unsigned, 7
 * bits a byte, low first, as protobuf's and DWARF's), signed values zigzag-coded first (protobuf's
 * sint64: 0, -1, 1, -2 become 0, 1, 2, 3).
 */
final class ColumnSink
{
    private byte[] bytes;
    private int length;

    ColumnSink(final int capacity)
    {
        bytes = new byte[capacity];
    }

    int length()
    {
        return length;
    }

    byte[] bytes()
    {
        return bytes;
    }

    void clear()
    {
        length = 0;
    }

    private void ensure(final int more)
    {
        if (length + more > bytes.length)
        {
            bytes = Arrays.copyOf(bytes, Math.max(length + more, bytes.length * 2));
        }
    }

    void put(final int b)
    {
        ensure(1);
        bytes[length++] = (byte)b;
    }

    void put(final byte[] from, final int offset, final int count)
    {
        ensure(count);
        System.arraycopy(from, offset, bytes, length, count);
        length += count;
    }

    void putVarint(final long value)
    {
        ensure(10);
        long v = value;
        while ((v & ~0x7fL) != 0)
        {
            bytes[length++] = (byte)((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        bytes[length++] = (byte)v;
    }

    void putSigned(final long value)
    {
        putVarint(zigzag(value));
    }

    static long zigzag(final long value)
    {
        return (value << 1) ^ (value >> 63);
    }

    static int varintLength(final long value)
    {
        return value == 0 ? 1 : (63 - Long.numberOfLeadingZeros(value)) / 7 + 1;
    }
}
