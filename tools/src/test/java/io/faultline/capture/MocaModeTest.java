package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    private static final Pattern BASE = Pattern.compile("base=0x([0-9a-f]+)");
    private static final Pattern LOG = Pattern.compile("tid=(\\d+) log=(\\S*)");

    @TempDir
    Path tmp;

    /** What one recording of moca_phases gave: the workload's logs by tid, the chunks by tid. */
    private record Run(Map<Integer, String> logs, Map<Integer, List<MocaChunk>> chunks, long base, TraceHeader header)
    {
    }

    private Run record(final String... scripts) throws Exception
    {
        // A segment split by an interval end (the workload was kept off the CPU for a whole
        // interval) makes moca_phases exit 3: record again rather than compare a broken phase.
        for (int attempt = 0;; attempt++)
        {
            final Path trace = tmp.resolve("trace-" + attempt + "-" + String.join("_", scripts).hashCode());
            final List<String> args = new ArrayList<>(List.of("record", "-q", "-o", trace.toString(), "--scope", "api",
                "--mode", "moca", "--interval", INTERVAL_MS + "ms", "--", Workloads.build("moca_phases").toString(),
                "32", String.valueOf(INTERVAL_MS)));
            args.addAll(List.of(scripts));
            final Faultline.Result result = Faultline.run(args.toArray(new String[0]));
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
                        chunks.computeIfAbsent(chunk.tid(), t -> new ArrayList<>()).add(chunk);
                    }
                });
                return new Run(logs, chunks, Long.parseUnsignedLong(base.group(1), 16), reader.header());
            }
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
                final List<MocaModel.Page> pages = new ArrayList<>();
                for (int i = 0; i < chunk.pages(); i++)
                {
                    final long offset = chunk.address(i) - run.base;
                    assertTrue(offset >= 0 && offset < 32L * PAGE, "a page outside the traced range: " + offset);
                    assertEquals(0, chunk.flags(i) & ChunkDescriptor.REC_FIRST_TOUCH, "every page was written before");
                    pages.add(new MocaModel.Page(offset / PAGE, (chunk.flags(i) & ChunkDescriptor.REC_WRITE) != 0,
                        chunk.reads(i), chunk.writes(i)));
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

    @Test
    void twoThreadsTouchingDisjointSetsGetChunksOfTheirOwn() throws Exception
    {
        final Run run = record("r1,w2,r3,w3/w4,r5/r1,r2", "w10,r11,w12/r13,w14,w14/w10,w11");
        assertEquals(2, run.logs.size(), run.toString());
        assertChunksMatchModel(run);
    }
}
