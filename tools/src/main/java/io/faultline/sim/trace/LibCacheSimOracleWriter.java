package io.faultline.sim.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import org.agrona.collections.Long2LongHashMap;

/**
 * libCacheSim's {@code oracleGeneral} binary trace, the layout of {@link LibCacheSimOracleFormat}
 * (libCacheSim traceReader/customizedReader/oracle/oracleGeneralBin.h): per reference, clock
 * time in seconds since the start of the recording (uint32), object id = page (uint64), object
 * size = the page size in bytes (uint32; libCacheSim skips size 0), and the next access's
 * virtual time (int64): the 1-based index of the next reference to the same page, or -1 if
 * there is none, as libCacheSim's traceConv computes it (bin/traceUtils/traceConvOracleGeneral.cpp).
 * The next accesses need the whole trace, so the keys and times are held until
 * {@link ExportFormat.Writer#finish()}: 12 bytes per reference.
 */
final class LibCacheSimOracleWriter implements ExportFormat
{
    static final long NO_NEXT_ACCESS = -1;
    private static final int RECORDS_PER_WRITE = 1 << 12;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long UINT32_MAX = 0xffff_ffffL;

    @Override
    public String name()
    {
        return "lcs-oracle";
    }

    @Override
    public String summary()
    {
        return "libCacheSim oracleGeneral binary with next-access times (cachesim FILE oracleGeneral)";
    }

    @Override
    public ExportFormat.Writer open(final OutputStream out, final int pageSize)
    {
        return new ExportFormat.Writer()
        {
            private long[] keys = new long[1 << 12];
            private int[] seconds = new int[1 << 12];
            private int size;

            @Override
            public void reference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write)
            {
                if (size == keys.length)
                {
                    if (size == Integer.MAX_VALUE - 8)
                    {
                        throw new TraceException("lcs-oracle export holds at most " + size
                            + " references; export a part with --pid or --tid");
                    }
                    final int capacity = (int)Math.min(Integer.MAX_VALUE - 8L, 2L * size);
                    keys = Arrays.copyOf(keys, capacity);
                    seconds = Arrays.copyOf(seconds, capacity);
                }
                keys[size] = Long.divideUnsigned(address, pageSize);
                seconds[size] = (int)Math.min(UINT32_MAX, Math.max(0, timeNs) / NANOS_PER_SECOND);
                size++;
            }

            @Override
            public void finish() throws IOException
            {
                write(out, keys, seconds, size, pageSize);
            }
        };
    }

    /** The records of {@code count} references, next accesses found by one backward pass. */
    static void write(final OutputStream out, final long[] keys, final int[] seconds, final int count,
        final int pageSize) throws IOException
    {
        final long[] next = new long[count];
        final Long2LongHashMap laterIndex = new Long2LongHashMap(NO_NEXT_ACCESS);
        for (int i = count - 1; i >= 0; i--)
        {
            final long later = laterIndex.put(keys[i], i);
            next[i] = later == NO_NEXT_ACCESS ? NO_NEXT_ACCESS : later + 1;
        }
        final ByteBuffer buffer = ByteBuffer.allocate(LibCacheSimOracleFormat.RECORD_LENGTH * RECORDS_PER_WRITE)
            .order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++)
        {
            buffer.putInt(seconds[i]).putLong(keys[i]).putInt(pageSize).putLong(next[i]);
            if (!buffer.hasRemaining())
            {
                out.write(buffer.array(), 0, buffer.position());
                buffer.clear();
            }
        }
        out.write(buffer.array(), 0, buffer.position());
        out.flush();
    }
}
