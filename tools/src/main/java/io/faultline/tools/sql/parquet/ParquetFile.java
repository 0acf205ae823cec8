package io.faultline.tools.sql.parquet;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;

/**
 * A Parquet file written from column arrays (the Apache Parquet format specification,
 * github.com/apache/parquet-format: README.md for the layout, Encodings.md for the encodings,
 * parquet.thrift for the footer): "PAR1", the row groups, each a column chunk per column of one
 * data page (format version 1) compressed with zstd, then the footer (FileMetaData, Thrift
 * compact), its length and "PAR1". Every column is OPTIONAL, as DuckDB writes its tables', with
 * its definition levels as one run where it has no null. Integers are DELTA_BINARY_PACKED (a
 * trace's seq and times grow by small steps, its ids repeat: a few bits a value before zstd),
 * booleans PLAIN (a bit each), strings PLAIN or, for a column of a few known values, a
 * dictionary. Each column chunk carries its min, max and null count, which readers use to skip
 * row groups.
 * <p>
 * {@link #encode} is safe on several threads at once (a row group's pages are compressed where
 * it is called); {@link #append} and {@link #close}, on one, in row order.
 */
public final class ParquetFile implements AutoCloseable
{
    /** A column's physical type and meaning (parquet.thrift's Type, ConvertedType, LogicalType). */
    public enum Type
    {
        INT64(2, 8), INT32(1, 4), BOOLEAN(0, 1), STRING(6, 0);

        final int physical;
        final int width;

        Type(final int physical, final int width)
        {
            this.physical = physical;
            this.width = width;
        }
    }

    /**
     * A column: {@code dictionary} (STRING only) names the few values its rows index, which are
     * given as indexes into it; else null.
     */
    public record Column(String name, Type type, String[] dictionary)
    {
        public Column
        {
            if (dictionary != null && (type != Type.STRING || dictionary.length == 0 || dictionary.length > 64))
            {
                throw new IllegalArgumentException("a dictionary is of 1 to 64 strings");
            }
        }

        public Column(final String name, final Type type)
        {
            this(name, type, null);
        }
    }

    /**
     * One row group's values, a column at a time: {@code longs[c]} for an integer, boolean (0 or
     * 1) or dictionary column, {@code strings[c]} for a plain string column, {@code nulls[c]}
     * (true: null) where a column has nulls, else null. Rows 0 to {@code rows} - 1.
     */
    public static final class Rows
    {
        public final long[][] longs;
        public final String[][] strings;
        public final boolean[][] nulls;
        public int rows;
        private int capacity;

        public Rows(final List<Column> columns, final int capacity)
        {
            longs = new long[columns.size()][];
            strings = new String[columns.size()][];
            nulls = new boolean[columns.size()][];
            this.capacity = capacity;
            for (int c = 0; c < columns.size(); c++)
            {
                if (columns.get(c).type() == Type.STRING && columns.get(c).dictionary() == null)
                {
                    strings[c] = new String[capacity];
                }
                else
                {
                    longs[c] = new long[capacity];
                }
            }
        }

        /** Room for {@code capacity} rows, the rows so far kept. */
        public void grow(final int capacity)
        {
            this.capacity = capacity;
            for (int c = 0; c < longs.length; c++)
            {
                if (longs[c] != null)
                {
                    longs[c] = java.util.Arrays.copyOf(longs[c], capacity);
                }
                if (strings[c] != null)
                {
                    strings[c] = java.util.Arrays.copyOf(strings[c], capacity);
                }
                if (nulls[c] != null)
                {
                    nulls[c] = java.util.Arrays.copyOf(nulls[c], capacity);
                }
            }
        }

        /** Column {@code c}'s null marks, made on first use. */
        public boolean[] nulls(final int c)
        {
            if (nulls[c] == null)
            {
                nulls[c] = new boolean[capacity()];
            }
            return nulls[c];
        }

        public int capacity()
        {
            return capacity;
        }
    }

    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
    private static final int PLAIN = 0;
    private static final int PLAIN_DICTIONARY = 2;
    private static final int RLE = 3;
    private static final int DELTA_BINARY_PACKED = 5;
    private static final int ZSTD_CODEC = 6;
    private static final int DATA_PAGE = 0;
    private static final int DICTIONARY_PAGE = 2;
    /** zstd's level: 1, the fastest of its ordinary levels; the pages are small after their encodings. */
    static final int LEVEL = 1;

    private final List<Column> columns;
    private final OutputStream out;
    private long position;
    private final List<Encoded> groups = new ArrayList<>();
    private long rows;
    /** The largest row group encoded so far, in bytes: where the next one's buffer starts. */
    private volatile int sizeHint = 1 << 16;

    public ParquetFile(final Path file, final List<Column> columns) throws IOException
    {
        this.columns = List.copyOf(columns);
        this.out = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        out.write(MAGIC);
        position = MAGIC.length;
    }

    public List<Column> columns()
    {
        return columns;
    }

    /** A row group encoded and compressed, its chunks' places relative to its start. */
    public static final class Encoded
    {
        final Bytes bytes;
        final int rows;
        final Chunk[] chunks;
        long start;

        Encoded(final Bytes bytes, final int rows, final Chunk[] chunks)
        {
            this.bytes = bytes;
            this.rows = rows;
            this.chunks = chunks;
        }
    }

    /** What the footer says of one column chunk. */
    private record Chunk(int dictionaryAt, int dataAt, int end, long uncompressed, long nulls, byte[] min, byte[] max,
        int[] encodings)
    {
    }

    /** Per thread: the page being encoded, its compressed form and the compressor. */
    private static final class Scratch
    {
        final Bytes page = new Bytes(1 << 20);
        final Bytes header = new Bytes(256);
        byte[] compressed = new byte[1 << 16];
        final ZstdCompressCtx zstd = new ZstdCompressCtx().setLevel(LEVEL);
        long[] deltas = new long[1 << 10];
        long[] present = new long[1 << 10];
        long[] compact = new long[1 << 10];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /** Encodes and compresses a row group; the rows may be reused once it returns. */
    public Encoded encode(final Rows rows)
    {
        final Scratch s = SCRATCH.get();
        final Bytes group = new Bytes(sizeHint + sizeHint / 8);
        final Chunk[] chunks = new Chunk[columns.size()];
        for (int c = 0; c < columns.size(); c++)
        {
            chunks[c] = chunk(s, group, columns.get(c), rows, c);
        }
        sizeHint = Math.max(sizeHint, group.size);
        return new Encoded(group, rows.rows, chunks);
    }

    private static Chunk chunk(final Scratch s, final Bytes group, final Column column, final Rows rows, final int c)
    {
        final int n = rows.rows;
        final boolean[] nulls = rows.nulls[c];
        long nullCount = 0;
        if (nulls != null)
        {
            for (int i = 0; i < n; i++)
            {
                nullCount += nulls[i] ? 1 : 0;
            }
        }
        final int values = (int)(n - nullCount);
        final Bytes page = s.page;
        long uncompressed = 0;
        int dictionaryAt = -1;
        final int[] encodings;
        byte[] min = null;
        byte[] max = null;
        if (column.dictionary() != null)
        {
            // the dictionary page: its values PLAIN
            page.clear();
            for (final String v : column.dictionary())
            {
                final byte[] b = v.getBytes(StandardCharsets.UTF_8);
                page.int32(b.length);
                page.write(b, 0, b.length);
            }
            dictionaryAt = group.size;
            uncompressed += page(s, group, page, DICTIONARY_PAGE, column.dictionary().length, PLAIN_DICTIONARY);
            encodings = new int[] {PLAIN_DICTIONARY, RLE};
        }
        else
        {
            encodings = new int[] {column.type() == Type.INT64 || column.type() == Type.INT32 ? DELTA_BINARY_PACKED : PLAIN,
                RLE};
        }
        page.clear();
        // definition levels (max level 1): 4-byte length, then the RLE/bit-packing hybrid of width 1
        final int lengthAt = page.size;
        page.int32(0);
        if (nullCount == 0 || nullCount == n)
        {
            Hybrid.run(page, n, nullCount == 0 ? 1 : 0, 1);
        }
        else
        {
            final long[] levels = s.present.length >= n ? s.present : (s.present = new long[n]);
            for (int i = 0; i < n; i++)
            {
                levels[i] = nulls[i] ? 0 : 1;
            }
            Hybrid.encode(page, levels, n, 1);
        }
        page.int32At(lengthAt, page.size - lengthAt - 4);
        // the values, nulls left out
        final long[] longs;
        if (rows.longs[c] != null && nullCount > 0 && values > 0)
        {
            longs = s.compact.length >= n ? s.compact : (s.compact = new long[n]);
            int k = 0;
            for (int i = 0; i < n; i++)
            {
                if (!nulls[i])
                {
                    longs[k++] = rows.longs[c][i];
                }
            }
        }
        else
        {
            longs = rows.longs[c];
        }
        if (column.dictionary() != null)
        {
            final int width = 32 - Integer.numberOfLeadingZeros(Math.max(1, column.dictionary().length - 1));
            page.write(width);
            Hybrid.encode(page, longs, values, width);
            long used = 0; // a bit per dictionary index in use (a dictionary of at most 64 values)
            for (int i = 0; i < values; i++)
            {
                used |= 1L << longs[i];
            }
            for (int i = 0; i < column.dictionary().length; i++)
            {
                // the least and greatest value in use, in byte order (not the dictionary's)
                if ((used & 1L << i) != 0)
                {
                    final byte[] b = column.dictionary()[i].getBytes(StandardCharsets.UTF_8);
                    min = min == null || compare(b, min) < 0 ? b : min;
                    max = max == null || compare(b, max) > 0 ? b : max;
                }
            }
        }
        else if (column.type() == Type.STRING)
        {
            final String[] strings = rows.strings[c];
            for (int i = 0; i < n; i++)
            {
                if (nulls == null || !nulls[i])
                {
                    final byte[] b = strings[i].getBytes(StandardCharsets.UTF_8);
                    page.int32(b.length);
                    page.write(b, 0, b.length);
                    min = min == null || compare(b, min) < 0 ? b : min;
                    max = max == null || compare(b, max) > 0 ? b : max;
                }
            }
        }
        else if (column.type() == Type.BOOLEAN)
        {
            final int seen = packBooleans(page, longs, values);
            if (values > 0)
            {
                min = new byte[] {(byte)((seen & 1) != 0 ? 0 : 1)};
                max = new byte[] {(byte)((seen & 2) != 0 ? 1 : 0)};
            }
        }
        else
        {
            final boolean int32 = column.type() == Type.INT32;
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            for (int i = 0; i < values; i++)
            {
                lo = Math.min(lo, longs[i]);
                hi = Math.max(hi, longs[i]);
            }
            if (values > 0)
            {
                min = plain(lo, int32);
                max = plain(hi, int32);
            }
            s.deltas = DeltaBinaryPacked.encode(page, longs, values, int32, s.deltas);
        }
        final int dataAt = group.size;
        uncompressed += page(s, group, page, DATA_PAGE, n, column.dictionary() != null ? PLAIN_DICTIONARY
            : encodings[0]);
        return new Chunk(dictionaryAt, dataAt, group.size, uncompressed, nullCount, min, max, encodings);
    }

    private static int compare(final byte[] a, final byte[] b)
    {
        return java.util.Arrays.compareUnsigned(a, b);
    }

    private static byte[] plain(final long v, final boolean int32)
    {
        final Bytes b = new Bytes(8);
        if (int32)
        {
            b.int32((int)v);
        }
        else
        {
            b.int64(v);
        }
        return java.util.Arrays.copyOf(b.array, b.size);
    }

    /**
     * PLAIN booleans: a bit each, low bit first.
     *
     * @return bit 0 set if a false was among them, bit 1 if a true was
     */
    private static int packBooleans(final Bytes page, final long[] values, final int n)
    {
        page.ensure(n / 8 + 1);
        final byte[] a = page.array;
        int at = page.size;
        int ones = 0;
        for (int i = 0; i < n; i += 8)
        {
            int b = 0;
            for (int k = 0; k < 8 && i + k < n; k++)
            {
                b |= (values[i + k] != 0 ? 1 : 0) << k;
            }
            a[at++] = (byte)b;
            ones += Integer.bitCount(b);
        }
        page.size = at;
        return (ones < n ? 1 : 0) | (ones > 0 ? 2 : 0);
    }

    /**
     * Compresses {@code page} and appends its header and it to {@code group}.
     *
     * @return the bytes of header and page before compression (ColumnMetaData's total_uncompressed_size)
     */
    private static long page(final Scratch s, final Bytes group, final Bytes page, final int type, final int values,
        final int encoding)
    {
        final int bound = (int)Zstd.compressBound(page.size);
        if (s.compressed.length < bound)
        {
            s.compressed = new byte[Math.max(bound, s.compressed.length * 2)];
        }
        final int compressed = s.zstd.compressByteArray(s.compressed, 0, bound, page.array, 0, page.size);
        final Bytes h = s.header;
        h.clear();
        final Thrift t = new Thrift(h).open();
        t.i32(1, type).i32(2, page.size).i32(3, compressed);
        if (type == DATA_PAGE)
        {
            t.struct(5).i32(1, values).i32(2, encoding).i32(3, RLE).i32(4, RLE).end();
        }
        else
        {
            t.struct(7).i32(1, values).i32(2, encoding).end();
        }
        t.end();
        group.write(h);
        group.write(s.compressed, 0, compressed);
        return h.size + page.size;
    }

    /** Writes an encoded row group after the last; in row order. */
    public void append(final Encoded group) throws IOException
    {
        group.start = position;
        out.write(group.bytes.array, 0, group.bytes.size);
        position += group.bytes.size;
        rows += group.rows;
        groups.add(group);
    }

    /** Encodes and writes a row group. */
    public void write(final Rows rows) throws IOException
    {
        append(encode(rows));
    }

    /** Writes the footer and closes the file. */
    @Override
    public void close() throws IOException
    {
        final Bytes footer = new Bytes(1 << 12);
        final Thrift t = new Thrift(footer).open();
        t.i32(1, 1);
        t.list(2, Thrift.STRUCT, columns.size() + 1);
        t.open().string(4, "schema").i32(5, columns.size()).end();
        for (final Column column : columns)
        {
            t.open().i32(1, column.type().physical).i32(3, 1).string(4, column.name());
            switch (column.type())
            {
                case INT64 -> t.i32(6, 18).struct(10).struct(10).i8(1, 64).bool(2, true).end().end(); // INT_64; Int(64, signed)
                case INT32 -> t.i32(6, 17).struct(10).struct(10).i8(1, 32).bool(2, true).end().end(); // INT_32; Int(32, signed)
                case STRING -> t.i32(6, 0).struct(10).struct(1).end().end(); // UTF8; String
                default -> { }
            }
            t.end();
        }
        t.i64(3, rows);
        t.list(4, Thrift.STRUCT, groups.size());
        for (final Encoded g : groups)
        {
            t.open().list(1, Thrift.STRUCT, columns.size());
            long total = 0;
            for (int c = 0; c < columns.size(); c++)
            {
                final Chunk k = g.chunks[c];
                final int from = k.dictionaryAt >= 0 ? k.dictionaryAt : k.dataAt;
                total += k.uncompressed;
                t.open().i64(2, 0).struct(3).i32(1, columns.get(c).type().physical);
                t.list(2, Thrift.I32, k.encodings.length);
                for (final int e : k.encodings)
                {
                    t.element(e);
                }
                t.list(3, Thrift.BINARY, 1).element(columns.get(c).name());
                t.i32(4, ZSTD_CODEC).i64(5, g.rows).i64(6, k.uncompressed).i64(7, k.end - from)
                    .i64(9, g.start + k.dataAt);
                if (k.dictionaryAt >= 0)
                {
                    t.i64(11, g.start + k.dictionaryAt);
                }
                t.struct(12);
                if (k.min != null)
                {
                    final boolean signedLegacy = columns.get(c).type() != Type.STRING;
                    if (signedLegacy)
                    {
                        t.binary(1, k.max).binary(2, k.min);
                    }
                    t.i64(3, k.nulls);
                    t.binary(5, k.max).binary(6, k.min);
                }
                else
                {
                    t.i64(3, k.nulls);
                }
                t.end(); // statistics
                t.end(); // meta_data
                t.end(); // column chunk
            }
            t.i64(2, total).i64(3, g.rows).i64(5, g.start).i64(6, g.bytes.size).end();
        }
        t.string(6, "faultline");
        t.list(7, Thrift.STRUCT, columns.size());
        for (int c = 0; c < columns.size(); c++)
        {
            t.open().struct(1).end().end(); // TypeDefinedOrder: min and max in the type's order
        }
        t.end();
        out.write(footer.array, 0, footer.size);
        final Bytes tail = new Bytes(8);
        tail.int32(footer.size);
        out.write(tail.array, 0, tail.size);
        out.write(MAGIC);
        out.close();
    }
}
