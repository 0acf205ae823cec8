package io.faultline.sim.trace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * libCacheSim's {@code lcs} binary trace (libCacheSim traceReader/customizedReader/lcs.h, the
 * versioned format of 2025; earlier libCacheSim had an lcs format with a field-list header, which this is not): an 8,192-byte header, then packed little-endian records whose
 * layout the header's version chooses.
 *
 * <pre>
 *   header   0     u64 start_magic   0x123456789abcdef0
 *            8     u64 version       1 to 8
 *            16    lcs_trace_stat    8,000 bytes (STAT_* offsets below, from its start)
 *            8016  u64 unused[21]
 *            8184  u64 end_magic     0x123456789abcdef0
 *   v1 record (24 bytes): u32 clock_time, u64 obj_id, u32 obj_size, i64 next_access_vtime
 *   v2 record (28 bytes): u32 clock_time, u64 obj_id, u32 obj_size, u32 op:8 | tenant:24,
 *                         i64 next_access_vtime
 *   v3 record (36 bytes): u32 clock_time, u64 obj_id, i64 obj_size, u32 op:8 | tenant:24,
 *                         u32 ttl, i64 next_access_vtime; v4 to v8: v3 and 1, 2, 4, 8, 16 u32 features
 * </pre>
 *
 * next_access_vtime is the 1-based index of the next request to the object; a last request has
 * -1 (what lcs.h documents) or INT64_MAX (what traceConv writes), which the reader takes alike.
 * op is libCacheSim's req_op_e (enum.h: OP_READ 12, OP_WRITE 13). Key = obj_id.
 */
final class LibCacheSimLcsFormat implements TraceFormat
{
    static final long MAGIC = 0x123456789abcdef0L;
    static final int HEADER_LENGTH = 8192;
    static final int VERSION_OFFSET = 8;
    static final int STAT_OFFSET = 16;
    static final int END_MAGIC_OFFSET = 8184;
    /** Record length of each version, index = version. */
    static final int[] RECORD_LENGTH = {0, 24, 28, 36, 40, 44, 52, 68, 100};
    static final int ID_OFFSET = 4;
    static final int V2 = 2;
    static final int OP_READ = 12;
    static final int OP_WRITE = 13;

    // lcs_trace_stat, packed: offsets from its start
    static final int STAT_VERSION = 0;
    static final int STAT_N_REQ = 8;
    static final int STAT_N_OBJ = 16;
    static final int STAT_N_REQ_BYTE = 24;
    static final int STAT_N_OBJ_BYTE = 32;
    static final int STAT_START_TIMESTAMP = 40;
    static final int STAT_END_TIMESTAMP = 48;
    static final int STAT_N_READ = 56;
    static final int STAT_N_WRITE = 64;
    static final int STAT_SMALLEST_OBJ_SIZE = 80;
    static final int STAT_LARGEST_OBJ_SIZE = 88;
    static final int STAT_MOST_COMMON_OBJ_SIZES = 96;
    static final int STAT_MOST_COMMON_OBJ_SIZE_RATIO = 224;
    static final int STAT_N_TENANT = 552;
    static final int STAT_MOST_COMMON_TENANTS = 556;
    static final int STAT_MOST_COMMON_TENANT_RATIO = 620;
    static final int STAT_N_TTL = 684;
    static final int STAT_MOST_COMMON_TTL_RATIO = 760;
    /** N_MOST_COMMON of lcs.h: the length of each most-common list. */
    static final int MOST_COMMON = 16;
    /** CURR_STAT_VERSION of lcs.h. */
    static final long STAT_VERSION_NOW = 1;

    private static final int RECORDS_PER_READ = 1 << 12;

    @Override
    public String name()
    {
        return "lcs";
    }

    @Override
    public String summary()
    {
        return "libCacheSim lcs binary (versions 1 to 8): 8 KiB header, then records; key = obj_id";
    }

    @Override
    public void read(final Path path, final TraceOptions options, final KeyTrace out) throws IOException
    {
        try (InputStream in = Compression.open(path))
        {
            final ByteBuffer header = ByteBuffer.wrap(in.readNBytes(HEADER_LENGTH)).order(ByteOrder.LITTLE_ENDIAN);
            if (header.capacity() < HEADER_LENGTH || header.getLong(0) != MAGIC || header.getLong(END_MAGIC_OFFSET) != MAGIC)
            {
                throw new TraceException(path + " is not an lcs trace: it does not start with libCacheSim's "
                    + HEADER_LENGTH + "-byte lcs header (magic 0x123456789abcdef0); give its format with --format");
            }
            final long version = header.getLong(VERSION_OFFSET);
            if (version < 1 || version >= RECORD_LENGTH.length)
            {
                throw new TraceException(path + " is lcs version " + version + "; faultline reads versions 1 to "
                    + (RECORD_LENGTH.length - 1));
            }
            final int length = RECORD_LENGTH[(int)version];
            final byte[] bytes = new byte[length * RECORDS_PER_READ];
            final ByteBuffer records = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            long count = 0;
            int n;
            while ((n = in.readNBytes(bytes, 0, bytes.length)) > 0)
            {
                for (int i = 0; i < n / length; i++)
                {
                    out.add(records.getLong(i * length + ID_OFFSET));
                }
                count += n / length;
                if (n % length != 0)
                {
                    throw new TraceException(path + ": record " + (count + 1) + " is truncated: " + (n % length)
                        + " of " + length + " bytes of an lcs version " + version + " record");
                }
            }
        }
    }
}
