package io.faultline.tracer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.faultline.format.Startup;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceWriter;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * The recorder of a JVM that traces itself through the Java API ({@code io.faultline.api}), run
 * as that JVM's child process: the agent's fault path may wait on a full ring, and what it
 * waits on must not be a thread of the JVM it traces (a Java thread can be held at a
 * safepoint while a faulting thread holds the safepoint up).
 * <p>
 * Hand-over, one line each way on the pipes:
 * <pre>
 *   recorder -> JVM   "shm PATH"     the shared memory is ready: the JVM calls faultline_attach(PATH)
 *                     "error TEXT"   it is not; exit status 2
 *   JVM -> recorder   "stop"         faultline_detach returned: the agent wrote its last record
 *                     "abandon"      the agent never started: delete the trace; exit status 3
 *                     (end of input) the JVM died: complete the trace with what was recorded
 *   recorder -> JVM   "done K=V ..." the trace is complete (references, read_faults, write_faults,
 *                                  pages, written_pages, ring_waits)
 *                     "error TEXT"   the agent stopped on an error; no trace was kept; exit status 1
 * </pre>
 * Arguments: the options of {@code faultline record} that apply ({@code -o}, {@code --evms},
 * {@code --ring-size}, {@code --chunk-records}), then {@code --} and the JVM's command line
 * for the header. The agent in the JVM watches this process (the control block's recorder
 * pid): if it dies, the agent brings every page home and the JVM runs on untraced.
 */
public final class AttachedRecorder
{
    private AttachedRecorder()
    {
    }

    public static void main(final String[] args)
    {
        Startup.prepare();
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        int status;
        try
        {
            status = record(RecordOptions.internal(List.of(args)), out);
        }
        catch (final RecordException ex)
        {
            out.println("error " + ex.getMessage());
            status = 2;
        }
        catch (final Exception ex)
        {
            out.println("error the recorder failed: " + ex);
            status = 1;
        }
        System.exit(status);
    }

    private static int record(final RecordOptions options, final PrintStream out) throws Exception
    {
        options.scope = io.faultline.format.ShmLayout.SCOPE_API;
        options.follow = false;
        options.slots = 1;
        try
        {
            TraceWriter.checkUsable(options.output, "directory");
        }
        catch (final TraceFormatException ex)
        {
            throw new RecordException(ex.getMessage());
        }
        final int pageSize = Libc.INSTANCE.getpagesize();
        final boolean outputExisted = Files.exists(options.output);
        final long startMonoNs = System.nanoTime();
        final TraceHeader header = Recorder.startHeader(options, pageSize, Instant.now());
        boolean kept = false;
        try (SharedMemory shm = SharedMemory.create(options, pageSize, startMonoNs))
        {
            final TraceWriter writer = TraceWriter.create(options.output, header);
            try
            {
                final TraceStats stats = new TraceStats(pageSize);
                final Logger logger = new Logger(shm, writer, stats, options.chunkRecords);
                logger.mainPid((int)ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L).longValue());
                final List<Throwable> failures = new ArrayList<>();
                final AgentRunner runner = new AgentRunner(
                    new BackoffIdleStrategy(100, 10, 1_000, 1_000_000), failures::add, null, logger);
                AgentRunner.startOnThread(runner);
                out.println("shm " + shm.file());
                if (!waitForStop())
                {
                    shm.requestStop();
                    runner.close();
                    return 3;
                }
                final long endMonoNs = System.nanoTime();
                shm.requestStop();
                runner.close();
                writer.takeOver();
                logger.drain();
                if (!failures.isEmpty())
                {
                    throw new RecordException("the logger failed: " + failures.get(0));
                }
                final String failure = Recorder.agentStopped(Recorder.slotCounters(shm, logger));
                if (failure != null)
                {
                    out.println("error " + failure);
                    return 1;
                }
                Recorder.finish(writer, header, stats, Recorder.slotCounters(shm, logger), 0, endMonoNs - startMonoNs,
                    System.err);
                kept = true;
                out.println("done references=" + stats.references + " read_faults=" + stats.reads + " write_faults="
                    + stats.writes + " pages=" + stats.distinctPages() + " written_pages=" + stats.writtenPages()
                    + " ring_waits=" + header.longValue(TraceHeader.RING_WAITS));
                return 0;
            }
            finally
            {
                writer.close();
                if (!kept)
                {
                    Recorder.deleteTrace(options.output, outputExisted);
                }
            }
        }
    }

    /** @return false if the JVM abandoned the recording */
    private static boolean waitForStop() throws IOException
    {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine())
        {
            if (line.equals("stop"))
            {
                return true;
            }
            if (line.equals("abandon"))
            {
                return false;
            }
        }
        return true;
    }

    /** @return this recorder's arguments, for {@link RecorderJvm#command} */
    public static List<String> arguments(final Path output, final int evmsPages, final int ringCapacity,
        final int chunkRecords, final List<String> tracedCommand)
    {
        final List<String> words = new ArrayList<>(List.of("-q", "-o",
            output.toString(), "--evms", String.valueOf(evmsPages), "--ring-size", String.valueOf(ringCapacity),
            "--chunk-records", String.valueOf(chunkRecords), "--"));
        words.addAll(tracedCommand);
        return words;
    }
}
