package io.faultline.sim.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.LongHashSet;

import static io.faultline.sim.trace.LibCacheSimLcsFormat.*;

/**
 * libCacheSim's {@code lcs} trace, version 2 (the layout of {@link LibCacheSimLcsFormat}): per
 * reference the time in whole seconds since the program started, the page as obj_id, the page
 * size as obj_size, read or write as op (OP_READ, OP_WRITE) and the thread id as tenant, and the
 * 1-based index of the next reference to the page (-1 if none, as lcs.h documents it). The
 * header's trace statistics hold what libCacheSim's lcsReader prints and its traceConv fills
 * from such a trace: requests, objects, their bytes, first and last time, reads and writes,
 * object sizes (every one the page size), tenants with the 16 most common, and TTLs (all 0);
 * the popularity fields (highest frequencies, Zipf skewness) are left 0, as lcs.h allows for
 * fields a writer does not fill. Like lcs-oracle, references are held until the end
 * ({@link HeldReferences}).
 */
final class LibCacheSimLcsWriter implements ExportFormat
{
    /** lcs's tenant is 24 bits wide. */
    static final int MAX_TENANT = (1 << 24) - 1;
    private static final int RECORDS_PER_WRITE = 1 << 12;

    @Override
    public String name()
    {
        return "lcs";
    }

    @Override
    public String summary()
    {
        return "libCacheSim lcs v2 binary: page, read/write as op, thread as tenant, next access (cachesim FILE lcs)";
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
                if (tid < 0 || tid > MAX_TENANT)
                {
                    throw new TraceException("thread " + tid + " does not fit lcs's 24-bit tenant field; export the "
                        + "other threads with --tid, or use --to lcs-oracle, which has no tenant");
                }
                held.add(PageKey.of(pid, address, pageSize), timeNs, (write ? OP_WRITE : OP_READ) | tid << 8);
            }

            @Override
            public void finish() throws IOException
            {
                out.write(header(held, pageSize).array());
                final long[] next = held.nextAccesses();
                final ByteBuffer buffer = ByteBuffer.allocate(RECORD_LENGTH[V2] * RECORDS_PER_WRITE)
                    .order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < held.size; i++)
                {
                    buffer.putInt(held.seconds[i]).putLong(held.keys[i]).putInt(pageSize).putInt(held.tags[i])
                        .putLong(next[i]);
                    if (!buffer.hasRemaining())
                    {
                        out.write(buffer.array(), 0, buffer.position());
                        buffer.clear();
                    }
                }
                out.write(buffer.array(), 0, buffer.position());
                out.flush();
            }
        };
    }

    /** The 8,192-byte header of version 2 with the statistics of {@code held}. */
    static ByteBuffer header(final HeldReferences held, final int pageSize)
    {
        final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        header.putLong(0, MAGIC).putLong(VERSION_OFFSET, V2).putLong(END_MAGIC_OFFSET, MAGIC);
        final int stat = STAT_OFFSET;
        final LongHashSet objects = new LongHashSet();
        final Int2IntHashMap requestsOfTenant = new Int2IntHashMap(0);
        long reads = 0;
        for (int i = 0; i < held.size; i++)
        {
            objects.add(held.keys[i]);
            final int tenant = held.tags[i] >>> 8;
            requestsOfTenant.put(tenant, requestsOfTenant.get(tenant) + 1);
            if ((held.tags[i] & 0xff) == OP_READ)
            {
                reads++;
            }
        }
        final long requests = held.size;
        header.putLong(stat + STAT_VERSION, STAT_VERSION_NOW)
            .putLong(stat + STAT_N_REQ, requests)
            .putLong(stat + STAT_N_OBJ, objects.size())
            .putLong(stat + STAT_N_REQ_BYTE, requests * pageSize)
            .putLong(stat + STAT_N_OBJ_BYTE, (long)objects.size() * pageSize)
            .putLong(stat + STAT_N_READ, reads)
            .putLong(stat + STAT_N_WRITE, requests - reads);
        if (requests == 0)
        {
            return header;
        }
        header.putLong(stat + STAT_START_TIMESTAMP, Integer.toUnsignedLong(held.seconds[0]))
            .putLong(stat + STAT_END_TIMESTAMP, Integer.toUnsignedLong(held.seconds[held.size - 1]))
            .putLong(stat + STAT_SMALLEST_OBJ_SIZE, pageSize)
            .putLong(stat + STAT_LARGEST_OBJ_SIZE, pageSize)
            .putLong(stat + STAT_MOST_COMMON_OBJ_SIZES, pageSize)
            .putFloat(stat + STAT_MOST_COMMON_OBJ_SIZE_RATIO, 1.0f)
            .putInt(stat + STAT_N_TTL, 1)
            .putFloat(stat + STAT_MOST_COMMON_TTL_RATIO, 1.0f);
        // the most common tenants first, ties by tenant id
        final List<int[]> tenants = new ArrayList<>();
        requestsOfTenant.forEach((tenant, count) -> tenants.add(new int[] {tenant, count}));
        tenants.sort((a, b) -> a[1] != b[1] ? Integer.compare(b[1], a[1]) : Integer.compare(a[0], b[0]));
        header.putInt(stat + STAT_N_TENANT, tenants.size());
        for (int i = 0; i < Math.min(MOST_COMMON, tenants.size()); i++)
        {
            header.putInt(stat + STAT_MOST_COMMON_TENANTS + 4 * i, tenants.get(i)[0]);
            header.putFloat(stat + STAT_MOST_COMMON_TENANT_RATIO + 4 * i, (float)tenants.get(i)[1] / requests);
        }
        return header;
    }
}
