package io.faultline.api;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.concurrent.atomic.AtomicReference;

import io.faultline.format.InputProblem;
import io.faultline.format.TraceWriter;
import io.faultline.tracer.Preflight;
import io.faultline.tracer.RecordException;

/**
 * Records the page reference trace of memory of this JVM, from Java:
 * <pre>{@code
 * try (Recording r = Faultline.record(Path.of("trace-dir"), RecordOptions.evms(512))) {
 *     r.trace(buffer);               // a direct ByteBuffer; also (address, length)
 *     workload(buffer);
 * }                                  // the trace is complete and closed here
 * }</pre>
 * The native agent (libfaultline.so) is loaded into this JVM on first use, without LD_PRELOAD;
 * the recorder that writes the trace runs in a child process (a JVM must never have its fault
 * path wait on one of its own Java threads, which a safepoint may hold). Only the ranges given
 * to {@link Recording#trace} are traced, as with {@code faultline record --scope api}. One
 * recording at a time; several in sequence are fine.
 */
public final class Faultline
{
    private static final AtomicReference<Recording> CURRENT = new AtomicReference<>();
    private static final Object STARTING = new Object();

    private Faultline()
    {
    }

    /** Starts a recording into {@code dir} (new, or an empty directory) with the default options. */
    public static Recording record(final Path dir)
    {
        return record(dir, RecordOptions.defaults());
    }

    /** Starts a recording into {@code dir} (new, or an empty directory). */
    public static Recording record(final Path dir, final RecordOptions options)
    {
        synchronized (STARTING)
        {
            final Recording running = CURRENT.get();
            if (running != null)
            {
                throw new FaultlineException("a recording into " + running.directory() + " is still running; close it "
                    + "before starting another (one recording at a time per JVM)");
            }
            if (System.getenv("FAULTLINE_SHM") != null)
            {
                throw new FaultlineException("this JVM runs under faultline record already, which traces it; "
                    + "run it without faultline record to use the Java API");
            }
            try
            {
                Preflight.checkUserfaultfd();
            }
            catch (final RecordException ex)
            {
                throw new FaultlineException(ex.getMessage());
            }
            final Agent.Calls agent = Agent.calls();
            final boolean created = traceDirectory(dir);
            final Recording recording;
            try
            {
                recording = start(dir, options, agent);
            }
            catch (final RuntimeException ex)
            {
                if (created)
                {
                    removeCreated(dir);
                }
                throw ex;
            }
            CURRENT.set(recording);
            return recording;
        }
    }

    /** The recorder started and the agent attached to it, or a reason; what the recorder wrote is gone. */
    private static Recording start(final Path dir, final RecordOptions options, final Agent.Calls agent)
    {
        final RecorderProcess recorder = RecorderProcess.start(dir, options);
        final String shm;
        try
        {
            shm = recorder.awaitSharedMemory();
        }
        catch (final FaultlineException ex)
        {
            recorder.abandon();
            throw ex;
        }
        final Recording recording = new Recording(dir, options, recorder, Path.of(shm));
        if (agent.faultline_attach(shm) != 0)
        {
            final int errno = Agent.errno();
            recorder.abandon();
            throw new FaultlineException(switch (errno)
            {
                case Agent.EPERM -> "the agent cannot create a userfaultfd here; give this user read-write access "
                    + "to /dev/userfaultfd or run sysctl vm.unprivileged_userfaultfd=1";
                case Agent.EBUSY -> "the agent is still tracing for an earlier recording; close it first";
                default -> "the agent could not start tracing (errno " + errno + "); its line on stderr says why";
            });
        }
        return recording;
    }

    /**
     * Makes {@code dir} the new, empty directory the recorder writes the trace into, or says in
     * the API's terms why it cannot be (the recorder's own checks speak of {@code faultline
     * record}'s {@code -o}).
     *
     * @return whether it created the directory, which a recording that fails to start removes
     */
    private static boolean traceDirectory(final Path dir)
    {
        final String cannot = "Faultline.record cannot write a trace into " + dir + ": ";
        final String fix = "; give Faultline.record a new or empty directory";
        final Path absolute = dir.toAbsolutePath();
        Path existing = absolute;
        while (existing != null && !Files.exists(existing))
        {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing))
        {
            throw new FaultlineException(cannot + (existing.equals(absolute) ? "it is a file" : existing + " is a file")
                + fix);
        }
        if (existing != null && existing.equals(absolute))
        {
            if (TraceWriter.holdsTrace(dir))
            {
                throw new FaultlineException(cannot + "it holds a trace already" + fix + ", or delete that trace");
            }
            try (Stream<Path> entries = Files.list(dir))
            {
                if (entries.findAny().isPresent())
                {
                    throw new FaultlineException(cannot + "the directory is not empty" + fix);
                }
            }
            catch (final IOException ex)
            {
                throw new FaultlineException(cannot + InputProblem.reason(ex) + fix + " that this user may write");
            }
            if (!Files.isWritable(dir))
            {
                throw new FaultlineException(cannot + "permission denied" + fix + " that this user may write");
            }
            return false;
        }
        try
        {
            Files.createDirectories(dir);
            return true;
        }
        catch (final IOException ex)
        {
            throw new FaultlineException(cannot + InputProblem.reason(ex) + fix + " that this user may create");
        }
    }

    /** A directory {@link #traceDirectory} created, removed again if nothing was written into it. */
    private static void removeCreated(final Path dir)
    {
        try
        {
            Files.deleteIfExists(dir);
        }
        catch (final IOException ex)
        {
            // not empty or not ours: it stays
        }
    }

    static void ended(final Recording recording)
    {
        CURRENT.compareAndSet(recording, null);
    }
}
