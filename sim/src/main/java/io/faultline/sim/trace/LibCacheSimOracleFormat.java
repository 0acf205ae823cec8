package io.faultline.sim.trace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * libCacheSim's {@code oracleGeneral} binary trace: packed 24-byte little-endian records.
 *
 * <pre>
 *   0        4                12       16                24
 *   +--------+----------------+--------+----------------+
 *   | time   | object id      | size   | next access    |
 *   | uint32 | uint64         | uint32 | int64 (-1 none)|
 *   +--------+----------------+--------+----------------+
 * </pre>
 *
 * Key = object id; time, size and next access are ignored (every object has size 1).
 */
final class LibCacheSimOracleFormat implements TraceFormat
{
    static final int RECORD_LENGTH = 24;
    static final int ID_OFFSET = 4;
    private static final int RECORDS_PER_READ = 1 << 12;

    @Override
    public String name()
    {
        return "lcs-oracle";
    }

    @Override
    public String summary()
    {
        return "libCacheSim oracleGeneral binary: 24-byte records (time, id, size, next); key = id";
    }

    @Override
    public void read(final Path path, final TraceOptions options, final KeyTrace out) throws IOException
    {
        final byte[] bytes = new byte[RECORD_LENGTH * RECORDS_PER_READ];
        final ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long records = 0;
        try (InputStream in = Compression.open(path))
        {
            int n;
            while ((n = in.readNBytes(bytes, 0, bytes.length)) > 0)
            {
                final int whole = n / RECORD_LENGTH;
                for (int i = 0; i < whole; i++)
                {
                    out.add(buffer.getLong(i * RECORD_LENGTH + ID_OFFSET));
                }
                records += whole;
                if (n % RECORD_LENGTH != 0)
                {
                    throw new TraceException(path + ": record " + (records + 1) + " is truncated: "
                        + (n % RECORD_LENGTH) + " of " + RECORD_LENGTH + " bytes (is this an oracleGeneral trace?)");
                }
            }
        }
    }
}
