package example;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import io.faultline.api.Faultline;
import io.faultline.api.RecordOptions;
import io.faultline.api.Recording;

/**
 * Traces a buffer of 64 pages with an EVMS of 16 while it reads each page and then writes it:
 * every page faults once, on its read (the write finds it enabled), and every page is written.
 * The summary says both: 64 read faults, 0 write faults, 64 pages written.
 *
 *   java -jar target/read-then-write.jar TRACE_DIR
 */
public final class ReadThenWrite
{
    private static final int PAGE = 4096;
    private static final int PAGES = 64;

    private ReadThenWrite()
    {
    }

    public static void main(final String[] args)
    {
        // whole pages of its own: a direct buffer's first and last page may hold other data
        final ByteBuffer buffer = ByteBuffer.allocateDirect((PAGES + 1) * PAGE).alignedSlice(PAGE);
        long sum = 0;
        try (Recording r = Faultline.record(Path.of(args.length > 0 ? args[0] : "trace"), RecordOptions.evms(16)))
        {
            r.trace(buffer);
            for (int page = 0; page < PAGES; page++)
            {
                final int offset = page * PAGE + 128;
                sum += buffer.getLong(offset);
                buffer.putLong(offset, sum + page);
            }
            r.close();
            System.out.println(r.summary());
        }
    }
}
