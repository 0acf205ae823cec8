package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.MocaChunk;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code record --mode moca}: the chunks of workloads whose phases each fall in one interval
 * (moca_phases synchronises with interval ends through mincore, without timing) equal
 * {@link MocaModel}'s, chunk for chunk and page for page, and a real program keeps its output.
 */
class MocaModeTest
{
    private static final int PAGE = 4096;
    private static final int INTERVAL_MS = 200;
    private static final int PAGES = 400;
    private static final Pattern BASE = Pattern.compile("base=0x([0-9a-f]+)");
    private static final Pattern LOG = Pattern.compile("tid=(\\d+) log=(\\S*)");

    @TempDir
    Path tmp;

    /** What one recording of moca_phases gave: the workload's logs by tid, the chunks by tid. */
    private record Run(Path trace, Map<Integer, String> logs, Map<Integer, List<MocaChunk>> chunks, long base,
        TraceHeader header, int excerpts)
    {
    }

    private Run record(final String... scripts) throws Exception
    {
        return record(List.of(), scripts);
    }

    private Run record(final List<String> options, final String... scripts) throws Exception
    {
        return record(options, Map.of(), scripts);
    }

    /** moca_phases over PAGES pages with SCRIPTS, recorded with the extra record options and environment. */
    private Run record(final List<String> options, final Map<String, String> env, final String... scripts)
        throws Exception
    {
        // A segment split by an interval end (the workload was kept off the CPU for a whole
        // interval) makes moca_phases exit 3: record again rather than compare a broken phase.
        for (int attempt = 0;; attempt++)
        {
            final Path trace = tmp.resolve("trace-" + attempt + "-" + String.join("_", scripts).hashCode());
            final List<String> args = new ArrayList<>(List.of("record", "-q", "-o", trace.toString(), "--scope", "api",
                "--mode", "moca", "--interval", INTERVAL_MS + "ms"));
            args.addAll(options);
            args.addAll(List.of("--", Workloads.build("moca_phases").toString(), String.valueOf(PAGES),
                String.valueOf(INTERVAL_MS)));
            args.addAll(List.of(scripts));
            final ProcessBuilder builder = Faultline.builder(args);
            builder.environment().putAll(env);
            final Faultline.Result result = Faultline.finish(builder, 120);
            if (result.status() == 3 && attempt < 3)
            {
                continue;
            }
            assertEquals(0, result.status(), result.describe());
            final Matcher base = BASE.matcher(result.out());
            assertTrue(base.find(), result.describe());
            final Map<Integer, String> logs = new LinkedHashMap<>();
            final Matcher log = LOG.matcher(result.out());
            while (log.find())
            {
                logs.put(Integer.parseInt(log.group(1)), log.group(2));
            }
            final Map<Integer, List<MocaChunk>> chunks = new HashMap<>();
            final int[] parts = {0};
            final TraceHeader header = forEachChunk(trace, chunk -> {
                chunks.computeIfAbsent(chunk.tid(), t -> new ArrayList<>()).add(chunk);
                parts[0]++;
            });
            return new Run(trace, logs, chunks, Long.parseUnsignedLong(base.group(1), 16), header, parts[0]);
        }
    }

    /** Every Moca chunk (or part of one) of the trace, in trace order; the trace's header. */
    private static TraceHeader forEachChunk(final Path trace, final Consumer<MocaChunk> each)
        throws Exception
    {
        try (TraceReader reader = TraceReader.open(trace))
        {
            reader.forEach(new TraceVisitor()
            {
                @Override
                public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                    final long address, final boolean write)
                {
                    throw new AssertionError("a Moca trace delivers chunks, not references");
                }

                @Override
                public void onMocaChunk(final MocaChunk chunk)
                {
                    each.accept(chunk);
                }
            });
            return reader.header();
        }
    }

    /** Every thread's chunks equal the model's for its log: ids, pages, kinds, read and write faults. */
    private static void assertChunksMatchModel(final Run run)
    {
        assertEquals(run.logs.keySet(), run.chunks.keySet(), "a thread has chunks iff it touched pages: " + run);
        for (final Map.Entry<Integer, String> thread : run.logs.entrySet())
        {
            final List<MocaModel.Chunk> expected = MocaModel.expected(thread.getValue());
            final List<MocaModel.Chunk> actual = new ArrayList<>();
            long previousInterval = -1;
            long previousClose = -1;
            for (final MocaChunk chunk : run.chunks.get(thread.getKey()))
            {
                final boolean part = !actual.isEmpty() && actual.get(actual.size() - 1).id() == chunk.chunkId();
                final List<MocaModel.Page> pages = part ? actual.get(actual.size() - 1).pages() : new ArrayList<>();
                for (int i = 0; i < chunk.pages(); i++)
                {
                    final long offset = chunk.address(i) - run.base;
                    assertTrue(offset >= 0 && offset < (long)PAGES * PAGE, "a page outside the traced range: " + offset);
                    assertEquals(0, chunk.flags(i) & ChunkDescriptor.REC_FIRST_TOUCH, "every page was written before");
                    pages.add(new MocaModel.Page(offset / PAGE, (chunk.flags(i) & ChunkDescriptor.REC_WRITE) != 0,
                        chunk.reads(i), chunk.writes(i)));
                }
                if (part)
                {
                    assertEquals(previousInterval, chunk.interval(), "the parts of a chunk are of one interval");
                    continue;
                }
                actual.add(new MocaModel.Chunk(chunk.chunkId(), pages));
                assertTrue(chunk.interval() > previousInterval, "one chunk per interval, in order: " + chunk.interval());
                assertTrue(chunk.closeSeq() >= chunk.endSeq() && chunk.closeSeq() > previousClose || previousClose < 0,
                    "chunks in the order of their intervals");
                previousInterval = chunk.interval();
                previousClose = chunk.closeSeq();
            }
            assertEquals(expected, actual, "thread " + thread.getKey() + " with log " + thread.getValue());
        }
    }

    @Test
    void setATouchedAgainAfterSetBAndThreeQuietIntervalsIsRecordedOncePerInterval() throws Exception
    {
        // page 1 is the thread's own (its first segment syncs on it); set A = 1..5, set B = 6..8
        final Run run = record("r1,w1,w2,r2,r3,r3,w4,r5,w5,w5/s3/r6,w7,r8,w8/r1,w1,r2,w3,r4,r5");
        assertChunksMatchModel(run);
        assertEquals(1, run.chunks.size());
        final List<MocaChunk> chunks = run.chunks.values().iterator().next();
        // the own page's interval, A, the own page after the sleep, B, A again
        assertEquals(5, chunks.size(), "chunks: " + chunks.size());
        assertTrue(run.header.isMoca());
        assertEquals(String.valueOf(INTERVAL_MS * 1_000_000L), run.header.get(TraceHeader.INTERVAL_NS));
        long pages = 0;
        for (final MocaChunk chunk : chunks)
        {
            pages += chunk.pages();
        }
        assertEquals(pages, run.header.longValue(TraceHeader.REFERENCES), "a reference is a page of a chunk");
        assertEquals(run.header.get(TraceHeader.AGENT_RECORDS), run.header.get(TraceHeader.REFERENCES));
    }

    /** The same intervals under the sigbus engine: each thread's faults resolved on the thread itself (issue 26). */
    @Test
    void theSigbusEngineRecordsTheModelsChunks() throws Exception
    {
        final Run run = record(List.of("--engine", "sigbus"), "r1,w1,w2,r2,r3,r3,w4,r5,w5,w5/s3/r6,w7,r8,w8/r1,w1,r2,w3,r4,r5");
        assertChunksMatchModel(run);
        assertEquals(5, run.chunks.values().iterator().next().size());
        assertEquals("sigbus", run.header.get(TraceHeader.ENGINE));
        assertEquals(run.header.get(TraceHeader.AGENT_RECORDS), run.header.get(TraceHeader.REFERENCES));
    }

    /**
     * export --to moca writes Moca's task file (its module's T, C and A lines): with one thread
     * and nothing else traced, the clock ticks once per page of its chunks, so every field of the
     * file follows from the model.
     */
    @Test
    void exportWritesMocasTaskFileWithTheModelsChunks() throws Exception
    {
        final Run run = record("r1,w2,r2,r3,r3/w4,r5,w5/s1/r6,w6");
        assertChunksMatchModel(run);
        final int tid = run.logs.keySet().iterator().next();
        final List<String> expected = new ArrayList<>(List.of("T 0 " + tid + " " + PAGE));
        long clock = 0;
        for (final MocaModel.Chunk chunk : MocaModel.expected(run.logs.get(tid)))
        {
            expected.add("C " + chunk.id() + " " + chunk.pages().size() + " " + clock + " " + (clock + chunk.pages().size()) + " 0");
            clock += chunk.pages().size();
            for (final MocaModel.Page page : chunk.pages())
            {
                // Moca's read count counts every fault of the page, its write count the writes
                expected.add(String.format("A %016x %016x %d %d 0", run.base + page.page() * PAGE, 0,
                    page.reads() + page.writes(), page.writes()));
            }
        }
        final Path out = tmp.resolve("moca-files");
        final Faultline.Result export = Faultline.run("export", "--to", "moca", "-o", out.toString(), run.trace.toString());
        assertEquals(0, export.status(), export.describe());
        assertEquals(expected, Files.readAllLines(out.resolve("Moca-task0.log")));
        assertEquals(List.of(out.resolve("Moca-task0.log")), Files.list(out).toList());

        final Faultline.Result simulate = Faultline.run("simulate", "--policies", "lru", "--sizes", "64", run.trace.toString());
        assertEquals(2, simulate.status(), simulate.describe());
        assertTrue(simulate.err().contains("was recorded with --mode moca: it holds the pages each thread touched per "
            + "interval, not a stream of references"), simulate.describe());
        final Faultline.Result again = Faultline.run("export", "--to", "moca", "-o", out.toString(), run.trace.toString());
        assertEquals(2, again.status(), again.describe());
        assertTrue(again.err().contains("is not a new or empty directory"), again.describe());
    }

    /**
     * With a 64 KiB ring one message holds 203 pages: an interval of 300 pages is one chunk in two
     * excerpts with one id, which the model sees as one chunk and export --to moca joins.
     */
    @Test
    void aChunkLargerThanARingMessageIsWrittenInPartsAndExportedWhole() throws Exception
    {
        final StringBuilder script = new StringBuilder();
        for (int p = 1; p <= 300; p++)
        {
            script.append(p == 1 ? "" : ",").append(p % 3 == 0 ? 'w' : 'r').append(p);
        }
        final Run run = record(List.of("--ring-size", "64K"), script.toString());
        assertChunksMatchModel(run);
        assertEquals(3, run.excerpts, "the own page's chunk, then 203 and 97 pages");
        final Path out = tmp.resolve("moca-parts");
        assertEquals(0, Faultline.run("export", "--to", "moca", "-o", out.toString(), run.trace.toString()).status());
        final List<String> chunkLines = Files.readAllLines(out.resolve("Moca-task0.log")).stream()
            .filter(l -> l.startsWith("C ")).toList();
        assertEquals(List.of("C 0 1 0 1 0", "C 1 300 1 301 0"), chunkLines);
    }

    @Test
    void dumpShowsEachChunkAndItsPages() throws Exception
    {
        final Run run = record("r1,w2,r2");
        final Faultline.Result dump = Faultline.run("dump", "--no-events", run.trace.toString());
        assertEquals(0, dump.status(), dump.describe());
        final List<String> lines = dump.out().lines().filter(l -> !l.startsWith("#")).toList();
        final MocaChunk sync = run.chunks.values().iterator().next().get(0);
        final MocaChunk phase = run.chunks.values().iterator().next().get(1);
        final int tid = sync.tid();
        final int pid = sync.pid();
        final long p1 = run.base + PAGE + 8;
        final long p2 = run.base + 2 * PAGE + 8;
        assertEquals(List.of(
            "== " + sync.closeSeq() + " " + sync.closeNs() + " " + pid + " " + tid + " chunk 0 interval " + sync.interval()
                + " pages 1 clock 0-1",
            "0 " + sync.timeNs(0) + " " + pid + " " + tid + " r 0x" + Long.toHexString(p1) + " 1 0",
            "== " + phase.closeSeq() + " " + phase.closeNs() + " " + pid + " " + tid + " chunk 1 interval " + phase.interval()
                + " pages 2 clock 1-3",
            "1 " + phase.timeNs(0) + " " + pid + " " + tid + " r 0x" + Long.toHexString(p1) + " 1 0",
            "2 " + phase.timeNs(1) + " " + pid + " " + tid + " w 0x" + Long.toHexString(p2) + " 0 1"), lines);
    }

    /** sort in a pipeline: the shell forks and execs it and uniq, each its own process with its own intervals */
    @Test
    void sortKeepsItsOutputUnderMocaMode() throws Exception
    {
        final StringBuilder numbers = new StringBuilder();
        final java.util.Random random = new java.util.Random(10);
        for (int i = 0; i < 100_000; i++)
        {
            numbers.append(random.nextInt(1_000_000)).append('\n');
        }
        final Path input = Files.writeString(tmp.resolve("numbers.txt"), numbers);
        final String pipeline = "sort -n " + input + " | uniq -c";
        final Faultline.Result plain = Faultline.exec(List.of("sh", "-c", pipeline), 300);
        final Path trace = tmp.resolve("sort");
        final Faultline.Result traced = Faultline.run(List.of("record", "-q", "-o", trace.toString(), "--mode", "moca",
            "--interval", "20ms", "--", "sh", "-c", pipeline), 600);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(plain.out(), traced.out(), "sort's output under --mode moca");
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertTrue(header.longValue(TraceHeader.REFERENCES) > 1000, header.values().toString());
        assertTrue(header.longValue(TraceHeader.PROCESSES) >= 3, "sh, sort and uniq: " + header.values());
        assertEquals(header.get(TraceHeader.AGENT_RECORDS), header.get(TraceHeader.REFERENCES), "no record lost");
        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        assertTrue(info.out().contains("mode moca, interval 20 ms"), info.out());
    }

    @Test
    void badCombinationsGetOneLineErrors() throws Exception
    {
        final String out = tmp.resolve("t").toString();
        assertOneLineError(Faultline.run("record", "--interval", "50ms", "-o", out, "--", "true"),
            "--interval applies to --mode moca");
        assertOneLineError(Faultline.run("record", "--mode", "moca", "--evms", "64", "-o", out, "--", "true"),
            "--mode moca keeps no EVMS: drop --evms");
        assertOneLineError(Faultline.run("record", "--mode", "moca", "--policy", "segq", "-o", out, "--", "true"),
            "--mode moca keeps no EVMS: drop --policy");
        assertOneLineError(Faultline.run("record", "--mode", "moca", "--interval", "500us", "-o", out, "--", "true"),
            "--interval must be at least 1 ms");
        assertOneLineError(Faultline.run("record", "--mode", "moca", "--engine", "mprotect", "-o", out, "--", "true"),
            "--mode moca runs on the userfaultfd engines only (uffd, sigbus); drop --engine mprotect");
        assertOneLineError(Faultline.run("record", "--mode", "moca", "--no-dirty", "-o", out, "--", "true"),
            "--no-dirty applies to --mode trace");
        assertOneLineError(Faultline.run("record", "--mode", "mocca", "-o", out, "--", "true"),
            "unknown mode 'mocca'; use --mode trace or --mode moca");
        assertOneLineError(Faultline.run("export", "--to", "moca", out), "give -o DIR");
        assertOneLineError(Faultline.run("record", "--mode", "moca", "--chunk-records", "64", "-o", out, "--", "true"),
            "--chunk-records applies to --mode trace");
    }

    private static void assertOneLineError(final Faultline.Result result, final String expected)
    {
        assertEquals(2, result.status(), result.describe());
        assertEquals(1, result.err().strip().lines().count(), result.describe());
        assertTrue(result.err().contains(expected), "'" + expected + "' in " + result.describe());
    }

    @Test
    void twoThreadsTouchingDisjointSetsGetChunksOfTheirOwn() throws Exception
    {
        final Run run = record("r1,w2,r3,w3/w4,r5/r1,r2", "w10,r11,w12/r13,w14,w14/w10,w11");
        assertEquals(2, run.logs.size(), run.toString());
        assertChunksMatchModel(run);
    }

    /**
     * Two threads fault on one page at once, without the lock (threads_script same-page: thread
     * B reads page 0 while thread A's fault on it is held open 1.5 s after its count,
     * FAULTLINE_TEST_SHARED_PAUSE): each fault is counted in its own thread's chunk, one read, and
     * the interval's end (1 s) waits for A's open fault, so both chunks are of one interval; the
     * program's memory ends as natively. Under sigbus, where B's fault is B's own: under uffd it is
     * a message that another fault thread must read while A's is paused, and if none runs in time
     * (they run at SCHED_IDLE), A's wake-up of the page drops B's unread message, as the kernel
     * drops any fault resolved before it was read (B's access then came after the page was home).
     */
    @Test
    void twoThreadsFaultingOnePageAtOnceAreEachCountedInOneInterval() throws Exception
    {
        final String engine = "sigbus";
        final long base = 0x7e0000000000L;
        final String program = Workloads.build("threads_script").toString();
        final Faultline.Result natively = Faultline.exec(List.of(program, "same-page", "8"), 60);
        assertEquals(0, natively.status(), natively.describe());
        final Path trace = tmp.resolve("same-page-" + engine);
        final ProcessBuilder builder = Faultline.builder(List.of("record", "-q", "-o", trace.toString(), "--scope",
            "api", "--mode", "moca", "--interval", "1s", "--engine", engine, "--", program, "same-page",
            "8"));
        builder.environment().put("FAULTLINE_TEST_SHARED_PAUSE", "0x" + Long.toHexString(base) + ":1500");
        final Faultline.Result traced = Faultline.finish(builder, 120);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(natively.out().replaceAll("page0 0x[0-9a-f]+", ""), traced.out().replaceAll("page0 0x[0-9a-f]+", ""));
        final List<String> page0 = new ArrayList<>();
        forEachChunk(trace, chunk -> {
            for (int i = 0; i < chunk.pages(); i++)
            {
                if (chunk.address(i) / PAGE == base / PAGE && chunk.tid() != chunk.pid())
                {
                    page0.add("interval " + chunk.interval() + " tid " + chunk.tid() + " reads " + chunk.reads(i)
                        + " writes " + chunk.writes(i));
                }
            }
        });
        assertEquals(2, page0.size(), "page 0 in the chunks of threads A and B: " + page0);
        assertEquals(page0.get(0).replaceAll(" tid \\d+", ""), page0.get(1).replaceAll(" tid \\d+", ""),
            "one interval, one read each: " + page0);
        assertTrue(page0.get(0).endsWith("reads 1 writes 0"), page0.toString());
        assertTrue(!page0.get(0).equals(page0.get(1)), "two threads: " + page0);
    }

    /**
     * Four threads fault at once, each counted in its own chunk without the agent lock (issue 38;
     * fault.c, resolve_counted): on the faulting threads under sigbus, on a fault thread per CPU
     * under uffd (FAULTLINE_HANDLERS=percpu), and, for comparison, one at a time by uffd's one
     * handler thread under the lock. Every thread's chunks are the model's.
     */
    @ParameterizedTest(name = "--engine {0} {1}")
    @CsvSource({"sigbus, ''", "uffd, percpu", "uffd, ''"})
    void fourThreadsFaultingAtOnceGetTheModelsChunks(final String engine, final String handlers) throws Exception
    {
        final String[] scripts = new String[4];
        for (int t = 0; t < scripts.length; t++)
        {
            final int b = 20 + 40 * t; // each thread's pages: b..b+29, its own
            final StringBuilder first = new StringBuilder();
            for (int p = 0; p < 30; p++)
            {
                first.append(p == 0 ? "" : ",").append(p % 3 == 0 ? "w" : "r").append(b + p);
            }
            scripts[t] = first + "/r" + b + ",w" + (b + 1) + ",w" + (b + 2) + ",r" + (b + 2) + ",r" + (b + 3)
                + "/s1/w" + (b + 4) + ",r" + (b + 5) + ",w" + (b + 5);
        }
        final Run run = record(List.of("--engine", engine),
            handlers.isEmpty() ? Map.of() : Map.of("FAULTLINE_HANDLERS", handlers), scripts);
        assertEquals(4, run.logs.size(), run.toString());
        assertChunksMatchModel(run);
        assertEquals(engine, run.header.get(TraceHeader.ENGINE));
        assertEquals(run.header.get(TraceHeader.AGENT_RECORDS), run.header.get(TraceHeader.REFERENCES));
    }
}
