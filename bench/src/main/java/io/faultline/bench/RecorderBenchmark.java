package io.faultline.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.ShmLayout;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import io.faultline.tracer.Logger;
import io.faultline.tracer.RecordOptions;
import io.faultline.tracer.SharedMemory;
import io.faultline.tracer.TraceStats;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Records per second the recorder sustains from a ring into the Chronicle Queue trace: the ring
 * is filled with chunks exactly as the agent writes them (untimed), then the {@link Logger}
 * drains it (timed): ring read, joining of one thread's consecutive chunks into excerpts of up
 * to 256 records, excerpt append, statistics. One operation = one record. The fork's flags are
 * trace-format's jvm.flags (an annotation cannot read a file; JvmFlagsCopiesTest holds them equal).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.util=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
    "-Dchronicle.analytics.disable=true"})
public class RecorderBenchmark
{
    /** Records per ring fill: with one-record chunks (64 ring bytes each) half of the 4 MiB ring. */
    public static final int RECORDS_PER_FILL = 32_768;

    @Param({"1", "16", "256"})
    public int chunkRecords;

    private SharedMemory shm;
    private OneToOneRingBuffer producer;
    private UnsafeBuffer chunk;
    private Path dir;
    private TraceWriter writer;
    private Logger logger;
    private long seq;

    @Setup(Level.Trial)
    public void openRing() throws IOException
    {
        final RecordOptions options = new RecordOptions();
        options.slots = 1;
        options.ringCapacity = 4 << 20;
        shm = SharedMemory.create(options, 4096, System.nanoTime());
        shm.buffer().putIntVolatile((int)ShmLayout.slotOffset(0) + ShmLayout.SLOT_STATE, ShmLayout.SLOT_ACTIVE);
        producer = shm.ring(0);
        chunk = new UnsafeBuffer(new byte[ChunkDescriptor.length(chunkRecords)]);
    }

    @Setup(Level.Iteration)
    public void openTrace() throws IOException
    {
        dir = Files.createTempDirectory("faultline-bench");
        Files.delete(dir);
        writer = TraceWriter.create(dir, TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION).put(TraceHeader.PAGE_SIZE, 4096));
        logger = new Logger(shm, writer, new TraceStats(4096), 256);
    }

    /** Untimed: the agent's side, chunks of chunkRecords records of one thread. */
    @Setup(Level.Invocation)
    public void fillRing()
    {
        chunk.putInt(ChunkDescriptor.PID, 1000);
        chunk.putInt(ChunkDescriptor.TID, 1001);
        chunk.putInt(ChunkDescriptor.COUNT, chunkRecords);
        for (int written = 0; written < RECORDS_PER_FILL; written += chunkRecords)
        {
            for (int i = 0; i < chunkRecords; i++)
            {
                final int r = ChunkDescriptor.recordOffset(i);
                chunk.putLong(r + ChunkDescriptor.RECORD_SEQ, seq);
                chunk.putLong(r + ChunkDescriptor.RECORD_TIME_NS, seq * 7);
                chunk.putLong(r + ChunkDescriptor.RECORD_ADDRESS, 0x7f0000000000L + ((seq * 4096) & 0xfffffff));
                chunk.putInt(r + ChunkDescriptor.RECORD_FLAGS, (int)(seq & 1));
                seq++;
            }
            if (!producer.write(ShmLayout.MSG_CHUNK, chunk, 0, chunk.capacity()))
            {
                throw new IllegalStateException("ring full: raise the ring size");
            }
        }
    }

    @Benchmark
    @org.openjdk.jmh.annotations.OperationsPerInvocation(RECORDS_PER_FILL)
    public int drain()
    {
        int work = 0;
        int done;
        while ((done = logger.doWork()) > 0)
        {
            work += done;
        }
        return work;
    }

    @TearDown(Level.Iteration)
    public void closeTrace() throws IOException
    {
        writer.close();
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }

    @TearDown(Level.Trial)
    public void closeRing()
    {
        shm.close();
    }
}
