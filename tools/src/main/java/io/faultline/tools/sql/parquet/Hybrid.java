package io.faultline.tools.sql.parquet;

/**
 * Parquet's RLE/bit-packing hybrid (parquet-format's Encodings.md), for definition levels and
 * dictionary indexes: runs of one value (a varint of the count shifted left once, then the value
 * in whole bytes) where a value repeats eight times or more, else groups of eight values
 * bit-packed (a varint of the groups shifted left once, plus one, then the bits).
 */
final class Hybrid
{
    /** Eight or more repeats make a run; shorter ones go bit-packed. */
    private static final int RUN = 8;
    /** Groups of eight in one bit-packed run at most, as Arrow's and parquet-mr's writers do. */
    private static final int GROUPS = 63;

    private Hybrid()
    {
    }

    /** One run of {@code count} times {@code value}. */
    static void run(final Bytes out, final int count, final long value, final int width)
    {
        out.varint((long)count << 1);
        for (int b = 0; b < (width + 7) / 8; b++)
        {
            out.write((int)(value >>> 8 * b));
        }
    }

    static void encode(final Bytes out, final long[] values, final int n, final int width)
    {
        int i = 0;
        while (i < n)
        {
            final int repeats = repeats(values, i, n);
            if (repeats >= RUN)
            {
                run(out, repeats, values[i], width);
                i += repeats;
                continue;
            }
            // bit-packed groups of eight until a long run begins at a group's start, or the end
            final int from = i;
            int groups = 0;
            while (i < n && groups < GROUPS && (groups == 0 || repeats(values, i, n) < 2 * RUN))
            {
                i += 8;
                groups++;
            }
            out.varint((long)groups << 1 | 1);
            final int have = Math.min(i, n) - from;
            if (have == groups * 8)
            {
                out.pack(values, from, have, 0, width);
            }
            else
            {
                // the last group, padded with zeros
                final long[] last = new long[groups * 8];
                System.arraycopy(values, from, last, 0, have);
                out.pack(last, 0, last.length, 0, width);
            }
            i = Math.min(i, n);
        }
    }

    private static int repeats(final long[] values, final int from, final int n)
    {
        int i = from + 1;
        while (i < n && values[i] == values[from])
        {
            i++;
        }
        return i - from;
    }
}
