package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recorded (page, kind) sequence of a workload with a known reference sequence equals what
 * the FIFO EVMS model predicts, record for record, with exact faulting addresses.
 */
class ExactnessTest
{
    private static final int PAGE = 4096;
    private static final Pattern BASE = Pattern.compile("base=0x([0-9a-f]+)");

    @TempDir
    Path tmp;

    private void assertTraceMatchesModel(final int evms, final int pages, final int populate, final String script)
        throws Exception
    {
        assertTraceMatchesModel(evms, pages, "", populate, script);
    }

    /** {@code placement}: "" for anywhere, "@LIB" for right after LIB's last mapping (api_script). */
    private void assertTraceMatchesModel(final int evms, final int pages, final String placement, final int populate,
        final String script) throws Exception
    {
        final Path data = tmp.resolve("data.bin");
        Files.write(data, new byte[4096]);
        final Path trace = tmp.resolve("trace-" + evms + "-" + script.hashCode());
        final Faultline.Result result = Faultline.run("record", "-q", "-o", trace.toString(), "--scope", "api",
            "--evms", String.valueOf(evms), "--", Workloads.build("api_script").toString(),
            pages + placement, String.valueOf(populate), script, data.toString());
        assertEquals(0, result.status(), result.describe());
        final Matcher m = BASE.matcher(result.out());
        assertTrue(m.find(), result.describe());
        final long base = Long.parseUnsignedLong(m.group(1), 16);

        final List<String> expected = new FifoEvmsModel(evms).recorded(script);
        final List<String> actual = new ArrayList<>();
        final Traces traces = Traces.read(trace);
        for (final Traces.Ref ref : traces.refs)
        {
            final long offset = ref.address() - base;
            assertTrue(offset >= 0 && offset < (long)pages * PAGE, "reference outside the registered range: " + ref);
            final long page = offset / PAGE;
            actual.add("" + ref.kind() + page);
        }
        assertEquals(expected, actual, "script " + script + " with evms " + evms);
        long previous = -1;
        for (final Traces.Ref ref : traces.refs)
        {
            assertTrue(ref.seq() > previous, "seq must increase in trace order: " + traces.refs);
            previous = ref.seq();
        }
    }

    private static String loop(final String kind, final int pages, final int rounds)
    {
        final StringBuilder s = new StringBuilder();
        for (int r = 0; r < rounds; r++)
        {
            for (int p = 0; p < pages; p++)
            {
                s.append(s.length() == 0 ? "" : ",").append(kind).append(p);
            }
        }
        return s.toString();
    }

    @Test
    void firstReferencesAfterRegisteringPopulatedPagesAreAllRecorded() throws Exception
    {
        assertTraceMatchesModel(16, 8, 8, "r0,r1,w2,r3,w4,r5,r6,w7,r0,w1");
    }

    @Test
    void loopOverOneMorePageThanTheEvmsFaultsEveryTime() throws Exception
    {
        assertTraceMatchesModel(16, 17, 17, loop("r", 17, 3));
    }

    @Test
    void loopOverOneFewerPageThanTheEvmsFaultsOnlyOnce() throws Exception
    {
        assertTraceMatchesModel(16, 15, 15, loop("w", 15, 4));
    }

    @Test
    void readsAndWritesKeepTheirKind() throws Exception
    {
        // 80 references over 24 pages, some populated before registering, reads and writes mixed
        final java.util.Random random = new java.util.Random(7);
        final StringBuilder script = new StringBuilder();
        for (int i = 0; i < 80; i++)
        {
            script.append(i == 0 ? "" : ",").append(random.nextBoolean() ? 'r' : 'w').append(random.nextInt(24));
        }
        assertTraceMatchesModel(16, 24, 10, script.toString());
    }

    @Test
    void readSyscallIntoAnEvictedPageIsRecordedAsAWrite() throws Exception
    {
        // w0 then 16 other pages evict page 0; s0 is the kernel writing it in read(2)
        assertTraceMatchesModel(16, 18, 18, "w0," + loop("r", 17, 1).replace("r0,", "") + ",s0,r0,r17,s1,r1");
    }

    /**
     * Anonymous memory right after the image of ld.so (whose data the agent never traces) is the
     * program's: the agent once refused it, taking every anonymous mapping that follows one of
     * its libraries for that library's .bss (a JVM's direct buffer merged into libfaultline's
     * .bss line was refused one run in twenty).
     */
    @Test
    void memoryRightAfterTheLoadersImageIsTraced() throws Exception
    {
        assertTraceMatchesModel(16, 20, "@ld-linux", 20, loop("r", 20, 2));
    }

    @Test
    void exactFaultingAddressesAreRecorded() throws Exception
    {
        final Path trace = tmp.resolve("exact");
        final Faultline.Result result = Faultline.run("record", "-q", "-o", trace.toString(), "--scope", "api",
            "--evms", "16", "--", Workloads.build("api_script").toString(), "4", "0", "r1,w2,r3,r0");
        assertEquals(0, result.status(), result.describe());
        final Matcher m = BASE.matcher(result.out());
        assertTrue(m.find());
        final long base = Long.parseUnsignedLong(m.group(1), 16);
        final List<Long> addresses = new ArrayList<>();
        Traces.read(trace).refs.forEach(r -> addresses.add(r.address() - base));
        assertEquals(List.of(PAGE + 8L, 2L * PAGE + 16, 3L * PAGE + 24, 0L), addresses);
    }
}
