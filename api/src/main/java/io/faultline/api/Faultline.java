package io.faultline.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import io.faultline.format.TraceFormatException;
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
                TraceWriter.checkUsable(dir, "directory for Faultline.record");
            }
            catch (final TraceFormatException ex)
            {
                throw new FaultlineException(ex.getMessage());
            }
            catch (final IOException ex)
            {
                throw new FaultlineException("cannot use " + dir + " for a trace: " + ex.getMessage()
                    + "; choose another directory");
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
            CURRENT.set(recording);
            return recording;
        }
    }

    static void ended(final Recording recording)
    {
        CURRENT.compareAndSet(recording, null);
    }
}
