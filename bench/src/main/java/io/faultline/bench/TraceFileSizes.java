package io.faultline.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventDescriptor;
import io.faultline.format.QueueFiles;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What a trace's queue files take, per Chronicle block size: the time to write N one-record
 * chunks each followed by an eviction event (a single-threaded program's trace, the commonest
 * and the smallest excerpts), the files' length (what cp or tar without --sparse copy) and
 * blocks on disk before and after {@link QueueFiles#trim}. BENCHMARKS.md, "Trace files".
 *
 * <pre>java -cp bench/target/benchmarks.jar io.faultline.bench.TraceFileSizes [REFERENCES [BLOCK_MIB...]]</pre>
 */
public final class TraceFileSizes
{
    private TraceFileSizes()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final long references = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        final long[] blocks = args.length > 1 ? Stream.of(args).skip(1).mapToLong(Long::parseLong).toArray()
            : new long[] {64, 16, 4, 1};
        System.out.println("references,block_mib,write_s,length_before,disk_before,length_after,disk_after,trim_ms");
        for (final long mib : blocks)
        {
            for (int round = 0; round < 3; round++)
            {
                run(references, mib);
            }
        }
    }

    private static void run(final long references, final long mib) throws IOException, InterruptedException
    {
        final Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "faultline-sizes");
        Files.delete(dir);
        final UnsafeBuffer chunk = new UnsafeBuffer(new byte[ChunkDescriptor.length(1)]);
        final UnsafeBuffer event = new UnsafeBuffer(new byte[EventDescriptor.HEADER_SIZE]);
        chunk.putInt(ChunkDescriptor.PID, 1000);
        chunk.putInt(ChunkDescriptor.TID, 1000);
        chunk.putInt(ChunkDescriptor.COUNT, 1);
        event.putInt(EventDescriptor.TYPE, 16);
        event.putInt(EventDescriptor.PID, 1000);
        event.putInt(EventDescriptor.TID, 1000);
        final long t0 = System.nanoTime();
        try (TraceWriter writer = TraceWriter.create(dir, TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION).put(TraceHeader.PAGE_SIZE, 4096), mib << 20))
        {
            for (long seq = 0; seq < references; seq++)
            {
                final int r = ChunkDescriptor.recordOffset(0);
                chunk.putLong(r + ChunkDescriptor.RECORD_SEQ, seq);
                chunk.putLong(r + ChunkDescriptor.RECORD_TIME_NS, seq * 25_000);
                chunk.putLong(r + ChunkDescriptor.RECORD_ADDRESS, 0x7f0000000000L + ((seq * 4096) & 0xfffffff));
                writer.write(TraceLayout.EXCERPT_CHUNK, chunk, 0, chunk.capacity());
                event.putLong(EventDescriptor.SEQ, seq + 1);
                event.putLong(EventDescriptor.TIME_NS, seq * 25_000 + 10);
                event.putLong(EventDescriptor.A, 0x7f0000000000L + (((seq - 512) * 4096) & 0xfffffff));
                writer.write(TraceLayout.EXCERPT_EVENT, event, 0, event.capacity());
            }
        }
        final double writeS = (System.nanoTime() - t0) / 1e9;
        final Path queue = dir.resolve(TraceLayout.QUEUE_DIR);
        final long[] before = sizes(queue);
        final long t1 = System.nanoTime();
        QueueFiles.trim(queue);
        final long trimMs = (System.nanoTime() - t1) / 1_000_000;
        final long[] after = sizes(queue);
        System.out.printf(Locale.ROOT, "%d,%d,%.3f,%d,%d,%d,%d,%d%n", references, mib, writeS, before[0], before[1],
            after[0], after[1], trimMs);
        try (Stream<Path> walk = Files.walk(dir))
        {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Length and bytes on disk (du's blocks) of the queue's files. */
    private static long[] sizes(final Path queue) throws IOException, InterruptedException
    {
        long length = 0;
        try (Stream<Path> files = Files.list(queue))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                length += Files.size(f);
            }
        }
        final Process du = new ProcessBuilder("du", "-s", "-B1", queue.toString()).start();
        final String out = new String(du.getInputStream().readAllBytes()).trim();
        du.waitFor();
        return new long[] {length, Long.parseLong(out.split("\\s+")[0])};
    }
}
