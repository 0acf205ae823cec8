package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writes as users mean them: record's summary line and info say how many faults were writes
 * and, apart, how many pages were written, from the dirty tags of their eviction records. A
 * program that reads each page and then writes it takes only read faults, and writes every page.
 */
class WrittenPagesTest
{
    private static final int PAGES = 64;

    @TempDir
    Path tmp;

    /** api_script over 64 pages with an EVMS of 16: {@code first} then {@code then} on each page in turn. */
    private Faultline.Result record(final Path trace, final String first, final String then, final String... options)
        throws Exception
    {
        final StringBuilder script = new StringBuilder();
        for (int page = 0; page < PAGES; page++)
        {
            script.append(page == 0 ? "" : ",").append(first).append(page);
            if (then != null)
            {
                script.append(',').append(then).append(page);
            }
        }
        final List<String> args = new ArrayList<>(List.of("record", "-o", trace.toString(), "--scope", "api", "--evms",
            "16"));
        args.addAll(List.of(options));
        args.addAll(List.of("--", Workloads.build("api_script").toString(), String.valueOf(PAGES), "0",
            script.toString()));
        final Faultline.Result result = Faultline.run(args, 120);
        assertEquals(0, result.status(), result.describe());
        return result;
    }

    /** record's summary line (after an engine's fallback note, if any). */
    private static String summary(final Faultline.Result result)
    {
        return result.err().lines().filter(line -> line.startsWith("faultline: ")).findFirst().orElse(result.describe());
    }

    private static void assertInfo(final Path trace, final String... lines) throws Exception
    {
        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        for (final String line : lines)
        {
            assertTrue(info.out().lines().anyMatch(line::equals), "'" + line + "' in\n" + info.out());
        }
    }

    @Test
    void aPageReadThenWrittenIsOneReadFaultAndAWrittenPage() throws Exception
    {
        final Path trace = tmp.resolve("read-then-write");
        final Faultline.Result result = record(trace, "r", "w");
        assertTrue(summary(result).startsWith("faultline: 64 references (64 read faults, 0 write faults) to 64 pages, 64 of "
            + "them written, from 1 process(es), 1 thread(s) in "), result.describe());
        assertInfo(trace, "references      64 (read faults 64, write faults 0)",
            "pages written   64 of them (256.0 KiB), by the dirty tags of their eviction records",
            "[api]                              64           64            0           64             64");
    }

    @Test
    void pagesOnlyReadAreNotWritten() throws Exception
    {
        final Path trace = tmp.resolve("read");
        final Faultline.Result result = record(trace, "r", null);
        assertTrue(summary(result).startsWith("faultline: 64 references (64 read faults, 0 write faults) to 64 pages, 0 of "
            + "them written, "), result.describe());
        assertInfo(trace, "pages written   0 of them (0 B), by the dirty tags of their eviction records");
    }

    @Test
    void withoutDirtyTrackingOnlyAWriteFaultMakesAPageWritten() throws Exception
    {
        final Path readThenWrite = tmp.resolve("no-dirty");
        record(readThenWrite, "r", "w", "--no-dirty");
        assertInfo(readThenWrite, "references      64 (read faults 64, write faults 0)",
            "pages written   0 of them (0 B), by their eviction records: without dirty tracking, only those whose "
                + "fault was a write");
        final Path written = tmp.resolve("no-dirty-writes");
        final Faultline.Result result = record(written, "w", null, "--no-dirty");
        assertTrue(summary(result).startsWith("faultline: 64 references (0 read faults, 64 write faults) to 64 pages, 64 "
            + "of them written, "), result.describe());
    }
}
