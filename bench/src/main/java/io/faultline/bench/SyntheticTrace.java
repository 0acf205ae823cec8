package io.faultline.bench;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes a format-4 trace of REFERENCES references, for the benches of the readers that need a
 * large one quickly (bench/sql-bench.sh): one process of four threads over three named mappings
 * ([heap] 64 MiB, libwork.so's .bss 4 MiB, an anonymous 256 MiB), each thread alternating runs
 * of 64 references of a sequential scan and of random pages, a quarter of them writes, and an
 * eviction record (tag r, w, R or W) after every second reference, as a program under EVMS
 * evicts about as often as it faults. Deterministic (seed 44).
 *
 * <pre>java -cp bench/target/benchmarks.jar io.faultline.bench.SyntheticTrace DIR [REFERENCES]</pre>
 */
public final class SyntheticTrace
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int PID = 4000;
    private static final int THREADS = 4;
    private static final int RUN = 64;
    private static final long[][] MAPPINGS = {{0x5555_0000_0000L, 64L << 20}, {0x7f00_0000_0000L, 4L << 20},
        {0x7f10_0000_0000L, 256L << 20}};
    private static final String[] NAMES = {"[heap]", "/usr/lib/libwork.so", ""};

    private SyntheticTrace()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length < 1)
        {
            System.err.println("usage: SyntheticTrace DIR [REFERENCES]");
            System.exit(2);
        }
        final Path dir = Path.of(args[0]);
        final long references = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
        final UnsafeBuffer chunk = new UnsafeBuffer(new byte[ChunkDescriptor.length(RUN)]);
        final UnsafeBuffer event = new UnsafeBuffer(new byte[512]);
        final SplittableRandom random = new SplittableRandom(44);
        final TraceHeader header = TraceHeader.create().put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
            .put(TraceHeader.PAGE_SIZE, 4096).put(TraceHeader.COMMAND, "synthetic");
        final long[] cursor = new long[THREADS];
        long seq = 0;
        long events = 0;
        long evictions = 0;
        long writes = 0;
        final long[] evictable = new long[RUN];
        final org.agrona.collections.LongHashSet distinct = new org.agrona.collections.LongHashSet();
        try (TraceWriter writer = TraceWriter.create(dir, header))
        {
            event(writer, event, EventType.PROCESS_START, PID, PID, 0, 0, 1, 0, 0, "/usr/bin/synthetic");
            events++;
            for (int m = 0; m < MAPPINGS.length; m++)
            {
                event(writer, event, EventType.TRACE_RANGE, PID, PID, 0, 0, MAPPINGS[m][0], MAPPINGS[m][1], 0, NAMES[m]);
                events++;
            }
            for (int t = 1; t < THREADS; t++)
            {
                event(writer, event, EventType.THREAD_START, PID, PID + t, 0, 0, PID, 0, 0, "");
                events++;
            }
            while (seq < references)
            {
                final int t = (int)((seq / RUN) % THREADS);
                final int count = (int)Math.min(RUN, references - seq);
                chunk.putInt(ChunkDescriptor.PID, PID, LE);
                chunk.putInt(ChunkDescriptor.TID, PID + t, LE);
                chunk.putLong(ChunkDescriptor.CHUNK_ID, 0, LE);
                chunk.putInt(ChunkDescriptor.COUNT, count, LE);
                chunk.putInt(ChunkDescriptor.FLAGS, 0, LE);
                final boolean scan = ((seq / RUN / THREADS) & 1) == 0;
                for (int i = 0; i < count; i++)
                {
                    final long[] m = MAPPINGS[scan ? 2 : random.nextInt(2)];
                    final long pages = m[1] >>> 12;
                    final long page = scan ? cursor[t]++ % pages : random.nextLong(pages);
                    final long address = m[0] + (page << 12) + 8L * random.nextInt(512);
                    final boolean write = random.nextInt(4) == 0;
                    writes += write ? 1 : 0;
                    final int r = ChunkDescriptor.recordOffset(i);
                    chunk.putLong(r + ChunkDescriptor.RECORD_SEQ, seq + i, LE);
                    chunk.putLong(r + ChunkDescriptor.RECORD_TIME_NS, (seq + i) * 50, LE);
                    chunk.putLong(r + ChunkDescriptor.RECORD_ADDRESS, address, LE);
                    chunk.putInt(r + ChunkDescriptor.RECORD_FLAGS, write ? ChunkDescriptor.REC_WRITE : 0, LE);
                    chunk.putInt(r + ChunkDescriptor.RECORD_STACK, 0, LE);
                    evictable[i] = address & ~0xfffL;
                    distinct.add(address >>> 12);
                }
                writer.write(TraceLayout.EXCERPT_CHUNK, chunk, 0, ChunkDescriptor.length(count));
                seq += count;
                for (int i = 0; i < count; i += 2)
                {
                    final char tag = "rwRW".charAt(random.nextInt(4));
                    event(writer, event, EventType.EVICT, PID, PID + t, seq, seq * 50, evictable[i], tag, 0, "");
                    evictions++;
                }
            }
            event(writer, event, EventType.PROCESS_EXIT, PID, PID, seq, seq * 50, 0, 0, 0, "");
            events++;
            writer.finish(TraceHeader.create().put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
                .put(TraceHeader.FAULTLINE_VERSION, io.faultline.format.FaultlineVersion.VERSION)
                .put(TraceHeader.PAGE_SIZE, 4096).put(TraceHeader.HOST, "synthetic").put(TraceHeader.KERNEL, "none")
                .put(TraceHeader.COMMAND, "synthetic").put(TraceHeader.MODE, TraceHeader.MODE_TRACE)
                .put(TraceHeader.INTERVAL_NS, 0).put(TraceHeader.EVMS_PAGES, 512).put(TraceHeader.POLICY, "fifo")
                .put(TraceHeader.LEAD_PAGES, 512).put(TraceHeader.TRAIL, "none").put(TraceHeader.DIRTY_TRACKING, true)
                .put(TraceHeader.KERNEL_EVENTS, false).put(TraceHeader.SCOPE, "all").put(TraceHeader.ENGINE, "synthetic")
                .put(TraceHeader.STACK_FRAMES, 0).put(TraceHeader.FOLLOW_FORKS, true)
                .put(TraceHeader.RING_CAPACITY, 0).put(TraceHeader.CHUNK_RECORDS, RUN)
                .put(TraceHeader.START_TIME, "2026-01-01T00:00:00Z").put(TraceHeader.END_TIME, "2026-01-01T00:00:01Z")
                .put(TraceHeader.DURATION_NS, seq * 50).put(TraceHeader.EXIT_STATUS, 0)
                .put(TraceHeader.PROCESSES, 1).put(TraceHeader.THREADS, THREADS).put(TraceHeader.CHUNKS, seq / RUN)
                .put(TraceHeader.AGENT_RECORDS, seq).put(TraceHeader.UNMATCHED_THREADS, 0).put(TraceHeader.RING_WAITS, 0)
                .put(TraceHeader.RING_WAIT_NS, 0).put(TraceHeader.RACES, 0).put(TraceHeader.DISTINCT_PAGES, distinct.size())
                .put(TraceHeader.REFERENCES, seq).put(TraceHeader.WRITES, writes).put(TraceHeader.READS, seq - writes)
                .put(TraceHeader.EVICTIONS, evictions).put(TraceHeader.EVENTS, events + evictions));
        }
        System.out.printf("%s: %,d references, %,d evictions, %,d other events%n", dir, seq, evictions, events);
    }

    private static void event(final TraceWriter writer, final UnsafeBuffer buffer, final EventType type, final int pid,
        final int tid, final long seq, final long timeNs, final long a, final long b, final long c, final String text)
    {
        final int length = EventDescriptor.encode(buffer, type, pid, tid, seq, timeNs, a, b, c, 0,
            text.getBytes(StandardCharsets.UTF_8));
        writer.write(TraceLayout.EXCERPT_EVENT, buffer, 0, length);
    }
}
