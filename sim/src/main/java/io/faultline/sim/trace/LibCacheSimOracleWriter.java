package io.faultline.sim.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * libCacheSim's {@code oracleGeneral} binary trace, the layout of {@link LibCacheSimOracleFormat}
 * (libCacheSim traceReader/customizedReader/oracle/oracleGeneralBin.h): per reference, clock
 * time in seconds since the program started (uint32), object id = page (uint64), object
 * size = the page size in bytes (uint32; libCacheSim skips size 0), and the next access's
 * virtual time (int64): the 1-based index of the next reference to the same page, or -1 if
 * there is none, as libCacheSim's traceConv computes it (bin/traceUtils/traceConvOracleGeneral.cpp).
 * The next accesses need the whole trace, so the keys and times are held until
 * {@link ExportFormat.Writer#finish()} ({@link HeldReferences}).
 */
final class LibCacheSimOracleWriter implements ExportFormat
{
    private static final int RECORDS_PER_WRITE = 1 << 12;

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
            private final HeldReferences held = new HeldReferences(name());

            @Override
            public void reference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write)
            {
                held.add(PageKey.of(pid, address, pageSize), timeNs, 0);
            }

            @Override
            public void finish() throws IOException
            {
                write(out, held, pageSize);
            }
        };
    }

    /** The records of every held reference. */
    static void write(final OutputStream out, final HeldReferences held, final int pageSize) throws IOException
    {
        final long[] next = held.nextAccesses();
        final ByteBuffer buffer = ByteBuffer.allocate(LibCacheSimOracleFormat.RECORD_LENGTH * RECORDS_PER_WRITE)
            .order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < held.size; i++)
        {
            buffer.putInt(held.seconds[i]).putLong(held.keys[i]).putInt(pageSize).putLong(next[i]);
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
