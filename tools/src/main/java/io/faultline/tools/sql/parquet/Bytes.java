package io.faultline.tools.sql.parquet;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A growing byte array: what a page, a column chunk or a footer is written into. Little-endian, as Parquet is. */
final class Bytes
{
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    byte[] array;
    int size;

    Bytes(final int capacity)
    {
        array = new byte[Math.max(16, capacity)];
    }

    void clear()
    {
        size = 0;
    }

    /** Room for {@code n} more bytes. */
    void ensure(final int n)
    {
        if (size + n > array.length)
        {
            array = Arrays.copyOf(array, Math.max(size + n, array.length * 2));
        }
    }

    void write(final int b)
    {
        ensure(1);
        array[size++] = (byte)b;
    }

    void write(final byte[] b, final int from, final int n)
    {
        ensure(n);
        System.arraycopy(b, from, array, size, n);
        size += n;
    }

    void write(final Bytes b)
    {
        write(b.array, 0, b.size);
    }

    /** ULEB128: 7 bits a byte, low first. */
    void varint(final long value)
    {
        ensure(10);
        long v = value;
        while ((v & ~0x7fL) != 0)
        {
            array[size++] = (byte)(v & 0x7f | 0x80);
            v >>>= 7;
        }
        array[size++] = (byte)v;
    }

    void int32(final int value)
    {
        ensure(4);
        INT.set(array, size, value);
        size += 4;
    }

    void int64(final long value)
    {
        ensure(8);
        LONG.set(array, size, value);
        size += 8;
    }

    /** Sets the four bytes at {@code at} (a length written after what it measures). */
    void int32At(final int at, final int value)
    {
        INT.set(array, at, value);
    }

    /**
     * Appends {@code n} values of {@code values} from {@code from}, less {@code base}, each in its
     * low {@code width} bits, packed low bit first (Parquet's bit-packing of the RLE/bit-packing
     * hybrid and of DELTA_BINARY_PACKED's miniblocks); {@code n * width} is a multiple of 8.
     */
    void pack(final long[] values, final int from, final int n, final long base, final int width)
    {
        if (width == 0)
        {
            return;
        }
        ensure(n * width / 8 + 8);
        final long mask = width == 64 ? -1L : (1L << width) - 1;
        long acc = 0;
        int bits = 0;
        for (int i = from; i < from + n; i++)
        {
            final long v = (values[i] - base) & mask;
            acc |= v << bits;
            bits += width;
            if (bits >= 64)
            {
                LONG.set(array, size, acc);
                size += 8;
                bits -= 64;
                acc = bits == 0 ? 0 : v >>> (width - bits);
            }
        }
        while (bits > 0)
        {
            array[size++] = (byte)acc;
            acc >>>= 8;
            bits -= 8;
        }
    }
}
