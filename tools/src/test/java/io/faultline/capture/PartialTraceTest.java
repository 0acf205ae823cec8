package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recorder killed with SIGKILL leaves a partial trace that holds every reference it drained:
 * the workload's references, known from its script and the FIFO EVMS model, are all there, in
 * order, and info, dump and simulate read it and say it is partial. Read by another process
 * while the recorder still runs, the same trace reads whole so far and is said to be still
 * recorded, not stopped (the writer's lock: TraceWriter.isBeingWritten).
 */
class PartialTraceTest
{
    private static final int PAGE = 4096;
    private static final Pattern BASE = Pattern.compile("base=0x([0-9a-f]+)");

    @TempDir
    Path tmp;

    @Test
    void aTraceWhoseRecorderWasKilledHoldsEveryDrainedReference() throws Exception
    {
        final int evms = 16;
        final int pages = 48;
        final StringBuilder script = new StringBuilder();
        for (int round = 0; round < 3; round++)
        {
            for (int p = 0; p < pages; p++)
            {
                script.append(script.length() == 0 ? "" : ",").append(p % 3 == 0 ? 'w' : 'r').append(p);
            }
        }
        final List<String> expected = ScriptModel.references(evms, script.toString());
        final Path trace = tmp.resolve("killed");
        final Path out = tmp.resolve("out.txt");
        final Process recorder = Faultline.builder(List.of("record", "-q", "--scope", "api", "--evms",
            String.valueOf(evms), "-o", trace.toString(), "--", Workloads.build("api_script").toString(),
            String.valueOf(pages), "0", script + ",p120"))
            .redirectOutput(out.toFile()).redirectError(tmp.resolve("err.txt").toFile()).start();
        final List<ProcessHandle> program;
        try
        {
            LifecycleTest.waitForFile(out, "paused");
            program = recorder.toHandle().descendants().toList();
            // The program published every record before it paused; wait until the recorder has
            // drained them all into the queue, then kill it.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (Traces.read(trace).refs.size() < expected.size() && System.nanoTime() < deadline)
            {
                Thread.sleep(50);
            }
            final Faultline.Result live = Faultline.run("info", trace.toString());
            assertEquals(0, live.status(), live.describe());
            assertTrue(live.out().contains("recording: the recorder is still writing it; readable up to excerpt"),
                live.describe());
            final Faultline.Result liveDump = Faultline.run("dump", "--no-events", trace.toString());
            assertEquals(0, liveDump.status(), liveDump.describe());
            assertTrue(liveDump.err().contains("is still being recorded: read " + expected.size() + " references"),
                liveDump.describe());
            recorder.toHandle().destroyForcibly();
            assertTrue(recorder.waitFor(30, TimeUnit.SECONDS));
        }
        finally
        {
            recorder.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            recorder.destroyForcibly();
        }
        program.forEach(ProcessHandle::destroyForcibly);
        assertEquals(TraceLayout.STATE_RECORDING,
            TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE)).get(TraceHeader.STATE));

        final Matcher m = BASE.matcher(Files.readString(out));
        assertTrue(m.find(), Files.readString(out));
        final long base = Long.parseUnsignedLong(m.group(1), 16);
        final List<String> actual = new ArrayList<>();
        for (final Traces.Ref ref : Traces.read(trace).refs)
        {
            actual.add("" + ref.kind() + (ref.address() - base) / PAGE);
        }
        assertEquals(expected, actual, "every reference drained before the kill, in order");

        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        assertTrue(info.out().contains("incomplete: the recorder stopped before finishing; readable up to excerpt"),
            info.describe());
        assertTrue(info.out().contains(String.format("%,d", expected.size())), info.describe());

        final Faultline.Result dump = Faultline.run("dump", "--no-events", trace.toString());
        assertEquals(0, dump.status(), dump.describe());
        // under fifo every reference past the first 16 evicts one page; the killed program never
        // reaches its exit, whose flush would add the rest
        assertEquals(1 + expected.size() + (expected.size() - evms), dump.out().lines().count(),
            "header line and one line per reference record and per eviction record");
        assertEquals(expected.size() - evms, dump.out().lines().filter(l -> l.contains(" evict ")).count(), dump.out());
        assertEquals(1, dump.err().lines().count(), dump.describe());
        assertTrue(dump.err().contains("is partial (its recorder stopped before finishing): read "
            + expected.size() + " references"), dump.describe());

        final Faultline.Result simulate = Faultline.run("simulate", "--policies", "lru", "--sizes", "1024",
            trace.toString());
        assertEquals(0, simulate.status(), simulate.describe());
        assertTrue(simulate.err().contains("is partial"), simulate.describe());
        assertFalse(simulate.err().contains("Exception"), simulate.describe());
    }
}
