package io.faultline.tools.sql.parquet;

/**
 * Parquet's DELTA_BINARY_PACKED encoding of integers (parquet-format's Encodings.md): a header
 * (values a block, miniblocks a block, the count, the first value), then blocks of 128 values'
 * differences from the value before, each block its least difference and then four miniblocks
 * of 32 differences less that least, bit-packed at the width of each miniblock's greatest.
 * Differences wrap around in the column's width (32 bits for INT32, as readers of INT32 decode
 * them), so any values encode.
 */
final class DeltaBinaryPacked
{
    static final int BLOCK = 128;
    static final int MINIBLOCKS = 4;
    static final int MINIBLOCK = BLOCK / MINIBLOCKS;

    private DeltaBinaryPacked()
    {
    }

    /**
     * Appends the encoding of {@code values[0..n)} to {@code out}.
     *
     * @param scratch room for the differences, returned, or a larger array if it had too little
     */
    static long[] encode(final Bytes out, final long[] values, final int n, final boolean int32, final long[] scratch)
    {
        out.varint(BLOCK);
        out.varint(MINIBLOCKS);
        out.varint(n);
        out.varint(Thrift.zigzag(n == 0 ? 0 : values[0]));
        if (n <= 1)
        {
            return scratch;
        }
        final int deltas = n - 1;
        final long[] d = scratch.length >= deltas + BLOCK ? scratch : new long[deltas + BLOCK];
        if (int32)
        {
            for (int i = 1; i < n; i++)
            {
                d[i - 1] = (int)values[i] - (int)values[i - 1]; // an int difference: wraps in 32 bits
            }
        }
        else
        {
            for (int i = 1; i < n; i++)
            {
                d[i - 1] = values[i] - values[i - 1];
            }
        }
        final int[] widths = new int[MINIBLOCKS];
        for (int block = 0; block < deltas; block += BLOCK)
        {
            final int inBlock = Math.min(BLOCK, deltas - block);
            long min = Long.MAX_VALUE;
            for (int i = block; i < block + inBlock; i++)
            {
                min = Math.min(min, d[i]);
            }
            // the last block's missing values: the least difference, so that they pack as zeros
            for (int i = block + inBlock; i < block + BLOCK; i++)
            {
                d[i] = min;
            }
            out.varint(Thrift.zigzag(min));
            final int used = (inBlock + MINIBLOCK - 1) / MINIBLOCK;
            for (int m = 0; m < MINIBLOCKS; m++)
            {
                long bits = 0;
                if (m < used)
                {
                    for (int i = block + m * MINIBLOCK; i < block + (m + 1) * MINIBLOCK; i++)
                    {
                        bits |= d[i] - min;
                    }
                }
                if (int32)
                {
                    bits &= 0xffffffffL;
                }
                widths[m] = 64 - Long.numberOfLeadingZeros(bits);
                out.write(widths[m]);
            }
            for (int m = 0; m < used; m++)
            {
                out.pack(d, block + m * MINIBLOCK, MINIBLOCK, min, widths[m]);
            }
        }
        return d;
    }
}
