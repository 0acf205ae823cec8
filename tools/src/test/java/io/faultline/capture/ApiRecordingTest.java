package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java API (io.faultline.api) in a JVM of its own ({@link ApiWorkload}), started without
 * LD_PRELOAD and without any JVM flag: the trace of a direct buffer touched in a known pattern
 * equals the FIFO EVMS model's, record for record, as the C workloads' traces do
 * ({@link ExactnessTest}); the buffer's contents survive; recordings follow each other; the
 * GC runs; a dead recorder gives the pages back; misuse gets a one-line reason with the fix.
 */
class ApiRecordingTest
{
    private static final int PAGE = 4096;

    @TempDir
    Path tmp;

    private static Map<String, String> run(final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "-cp", Faultline.classPath(), ApiWorkload.class.getName()));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("LD_PRELOAD");
        final Faultline.Result result = Faultline.finish(builder, 180);
        assertEquals(0, result.status(), result.describe());
        final Map<String, String> values = new HashMap<>();
        for (final String line : result.out().split("\n"))
        {
            final int eq = line.indexOf('=');
            if (eq > 0)
            {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        values.put("stderr", result.err());
        return values;
    }

    private static void assertTraceIsModel(final Path trace, final long base, final int evms, final int pages,
        final String script)
    {
        final List<String> actual = new ArrayList<>();
        for (final Traces.Ref ref : Traces.read(trace).refs)
        {
            final long offset = ref.address() - base;
            assertTrue(offset >= 0 && offset < (long)pages * PAGE, "reference outside the traced buffer: " + ref);
            assertEquals(64, offset % PAGE, "exact faulting address: " + ref);
            actual.add("" + ref.kind() + offset / PAGE);
        }
        assertEquals(ScriptModel.references(evms, script), actual, "evms " + evms + ", script " + script);
    }

    private static String randomScript(final int seed, final int references, final int pages)
    {
        final Random random = new Random(seed);
        final StringBuilder script = new StringBuilder();
        for (int i = 0; i < references; i++)
        {
            script.append(i == 0 ? "" : ",").append(random.nextInt(4) == 0 ? 'w' : 'r').append(random.nextInt(pages));
        }
        return script.toString();
    }

    private static String loop(final int pages, final int rounds)
    {
        final StringBuilder script = new StringBuilder();
        for (int i = 0; i < pages * rounds; i++)
        {
            script.append(i == 0 ? "" : ",").append(i % 3 == 0 ? 'w' : 'r').append(i % pages);
        }
        return script.toString();
    }

    @Test
    void recordingsInSequenceEachEqualTheFifoModelAndKeepTheBuffer() throws Exception
    {
        final int pages = 40;
        final String first = randomScript(1, 300, pages);
        final String second = loop(pages, 3);
        final String third = randomScript(3, 200, 24);
        final Map<String, String> out = run("script", tmp.resolve("a").toString(), "16", String.valueOf(pages), first,
            tmp.resolve("b").toString(), "32", second, tmp.resolve("c").toString(), "512", third);
        final long base = Long.parseUnsignedLong(out.get("base").substring(2), 16);
        assertTraceIsModel(tmp.resolve("a"), base, 16, pages, first);
        assertTraceIsModel(tmp.resolve("b"), base, 32, pages, second);
        assertTraceIsModel(tmp.resolve("c"), base, 512, pages, third);
        assertEquals("true", out.get("intact"), out.toString());
        final Faultline.Result info = Faultline.run("info", tmp.resolve("b").toString());
        assertEquals(0, info.status(), info.describe());
        assertTrue(info.out().contains("scope api"), info.out());
    }

    @Test
    void theGcRunsInALoopWhileTheBufferIsTraced() throws Exception
    {
        final int pages = 48;
        final String script = loop(pages, 12);
        final Map<String, String> out = run("gc", tmp.resolve("gc").toString(), "16", String.valueOf(pages), script);
        assertTrue(Long.parseLong(out.get("collections")) > 0, out.toString());
        assertTraceIsModel(tmp.resolve("gc"), Long.parseUnsignedLong(out.get("base").substring(2), 16), 16, pages, script);
        assertEquals("true", out.get("intact"), out.toString());
    }

    @Test
    void whenTheRecorderDiesThePagesComeBackAndTheJvmRunsOn() throws Exception
    {
        final Map<String, String> out = run("kill", tmp.resolve("kill").toString(), "64");
        assertEquals("true", out.get("intact"), out.toString());
        assertTrue(out.get("trace_after_kill").contains("the agent stopped tracing because the recorder process"),
            out.toString());
        assertTrue(out.get("close_after_kill").contains("died during the recording"), out.toString());
        assertEquals("ok", out.get("again"), out.toString());
        // the next recording in the same JVM: one sweep of writes over 64 pages
        final StringBuilder sweep = new StringBuilder();
        for (int p = 0; p < 64; p++)
        {
            sweep.append(p == 0 ? "" : ",").append('w').append(p);
        }
        assertTraceIsModel(tmp.resolve("kill-again"), Long.parseUnsignedLong(out.get("base").substring(2), 16), 16, 64,
            sweep.toString());
    }

    @Test
    void misuseGetsOneLineWithTheFix() throws Exception
    {
        Files.writeString(tmp.resolve("file"), "not a directory");
        final Map<String, String> out = run("bad", tmp.toString());
        assertEquals("trace(ByteBuffer) needs a direct buffer: this one lives on the Java heap, where the GC moves it; "
            + "allocate it with ByteBuffer.allocateDirect", out.get("heap"));
        assertEquals("this recording into " + tmp.resolve("closed") + " is closed; start a new one with Faultline.record "
            + "to trace more", out.get("closed"));
        assertEquals("Faultline.record cannot write a trace into " + tmp.resolve("file").resolve("t") + ": "
            + tmp.resolve("file") + " is a file; give Faultline.record a new or empty directory", out.get("unwritable"));
        assertEquals("a recording into " + tmp.resolve("first") + " is still running; close it before starting another "
            + "(one recording at a time per JVM)", out.get("concurrent"));
        assertEquals("RecordOptions.evms takes 16 to 16777216 pages (one x86 instruction can need several pages enabled "
            + "at once: operands that straddle pages, string moves, gathers, the stack): 4", out.get("evms"));
        assertEquals("Faultline.record cannot write a trace into " + tmp.resolve("closed") + ": it holds a trace already; "
            + "give Faultline.record a new or empty directory, or delete that trace", out.get("holds_trace"));
        assertTrue(out.get("mapped").matches("cannot trace \\[0x[0-9a-f]+, 0x[0-9a-f]+\\): it is not private anonymous "
            + "writable memory; trace direct buffers \\(ByteBuffer.allocateDirect\\) or Unsafe/malloc memory, not file "
            + "mappings"), out.toString());
        assertTrue(Files.exists(tmp.resolve("first")) && !Files.exists(tmp.resolve("second")), out.toString());
    }
}
