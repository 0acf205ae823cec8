package io.faultline.tools.sql.parquet;

import java.nio.charset.StandardCharsets;

/**
 * Apache Thrift's compact protocol, the writing half, as Parquet's page headers and footer need
 * it (Thrift's doc/specs/thrift-compact-protocol.md): a field is a header byte (the id's
 * difference from the previous field's, 1 to 15, over the type) or the type then the id as a
 * zigzag varint; integers are zigzag varints, a binary its length then its bytes, a list a
 * header (size and element type) then its elements, a struct its fields then a zero byte; a
 * bool field's value is its type.
 */
final class Thrift
{
    static final int BOOL_TRUE = 1;
    static final int BOOL_FALSE = 2;
    static final int BYTE = 3;
    static final int I32 = 5;
    static final int I64 = 6;
    static final int BINARY = 8;
    static final int LIST = 9;
    static final int STRUCT = 12;

    private final Bytes out;
    /** The last field id of each open struct, the innermost at {@code depth}. */
    private final short[] last = new short[32];
    private int depth;

    Thrift(final Bytes out)
    {
        this.out = out;
    }

    private void field(final int type, final int id)
    {
        final int delta = id - last[depth];
        if (delta > 0 && delta <= 15)
        {
            out.write(delta << 4 | type);
        }
        else
        {
            out.write(type);
            out.varint(zigzag(id));
        }
        last[depth] = (short)id;
    }

    static long zigzag(final long v)
    {
        return v << 1 ^ v >> 63;
    }

    Thrift i32(final int id, final int value)
    {
        field(I32, id);
        out.varint(zigzag(value));
        return this;
    }

    Thrift i8(final int id, final int value)
    {
        field(BYTE, id);
        out.write(value);
        return this;
    }

    Thrift i64(final int id, final long value)
    {
        field(I64, id);
        out.varint(zigzag(value));
        return this;
    }

    Thrift bool(final int id, final boolean value)
    {
        field(value ? BOOL_TRUE : BOOL_FALSE, id);
        return this;
    }

    Thrift binary(final int id, final byte[] value)
    {
        field(BINARY, id);
        out.varint(value.length);
        out.write(value, 0, value.length);
        return this;
    }

    Thrift string(final int id, final String value)
    {
        return binary(id, value.getBytes(StandardCharsets.UTF_8));
    }

    /** A struct field; its fields follow, then {@link #end}. */
    Thrift struct(final int id)
    {
        field(STRUCT, id);
        return open();
    }

    /** A struct as a list's element, or the outermost one; its fields follow, then {@link #end}. */
    Thrift open()
    {
        last[++depth] = 0;
        return this;
    }

    Thrift end()
    {
        out.write(0);
        depth--;
        return this;
    }

    /** A list field of {@code size} elements of {@code type}, which follow. */
    Thrift list(final int id, final int type, final int size)
    {
        field(LIST, id);
        if (size < 15)
        {
            out.write(size << 4 | type);
        }
        else
        {
            out.write(0xf0 | type);
            out.varint(size);
        }
        return this;
    }

    /** An i32 element of a list. */
    Thrift element(final int value)
    {
        out.varint(zigzag(value));
        return this;
    }

    /** A string element of a list. */
    Thrift element(final String value)
    {
        final byte[] b = value.getBytes(StandardCharsets.UTF_8);
        out.varint(b.length);
        out.write(b, 0, b.length);
        return this;
    }
}
