package io.faultline.tracer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.FaultlineVersion;
import io.faultline.format.ShmLayout;
import io.faultline.format.Startup;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import sun.misc.Signal;

/**
 * {@code faultline record}: checks the program and the kernel, creates the shared memory, starts
 * the program with the agent preloaded, runs the {@link Logger} until the program exits, then
 * completes the trace header. Exits with the program's status (128+N for signal N).
 */
public final class Recorder
{
    public static final String VERSION = FaultlineVersion.VERSION;

    private final RecordOptions options;
    private final PrintStream err;
    private final RecordingCounts counts;
    private ExcerptTee tee;

    public Recorder(final RecordOptions options, final PrintStream err)
    {
        this(options, err, new RecordingCounts());
    }

    /** @param counts where the recording publishes what it has written so far, for a progress line */
    public Recorder(final RecordOptions options, final PrintStream err, final RecordingCounts counts)
    {
        this.options = options;
        this.err = err;
        this.counts = counts;
    }

    /**
     * {@code faultline record} without the launcher, for tools that start it as a command prefix
     * (the JMH profiler runs each benchmark fork under it). Same arguments, output and status.
     */
    public static void main(final String[] args)
    {
        Startup.prepare();
        int status;
        try
        {
            status = new Recorder(RecordOptions.internal(List.of(args)), System.err).record();
        }
        catch (final RecordException ex)
        {
            System.err.println("faultline record: " + ex.getMessage());
            status = 2;
        }
        catch (final Exception ex)
        {
            System.err.println("faultline record: " + ex);
            status = 1;
        }
        System.exit(status);
    }

    /**
     * Hands every excerpt to {@code tee} as the logger writes it (record --live). With no
     * {@link RecordOptions#output} the recording keeps no trace and the tee is all there is.
     */
    public Recorder tee(final ExcerptTee tee)
    {
        this.tee = tee;
        return this;
    }

    public int record() throws Exception
    {
        final Path program = Preflight.resolveProgram(options.command.get(0));
        Preflight.checkLoadsAgent(program);
        final String note = EngineChoice.choose(options, "record", options.mocaIntervalNs == 0);
        if (note != null)
        {
            err.println(note);
        }
        final boolean keep = options.output != null;
        if (!keep && tee == null)
        {
            throw new RecordException("missing -o DIR: where to write the trace");
        }
        try
        {
            if (keep && options.replace)
            {
                TraceWriter.removeTrace(options.output, "-o"); // after the checks above: a bad command keeps it
            }
            else if (keep && Files.isDirectory(options.output) && TraceWriter.holdsTrace(options.output))
            {
                throw new RecordException("output " + options.output + " already holds a trace; choose another -o, "
                    + "or give --force to replace it");
            }
            if (keep)
            {
                TraceWriter.checkUsable(options.output);
            }
        }
        catch (final TraceFormatException ex)
        {
            throw new RecordException(ex.getMessage(), ex.problem());
        }
        final Path agent = AgentLibrary.locate();
        final int pageSize = Libc.INSTANCE.getpagesize();
        final boolean outputExisted = keep && Files.exists(options.output);

        CompilerThreads.yieldToProgram(); // our JIT's catching up must not take the program's CPUs
        final long startMonoNs = System.nanoTime(); // CLOCK_MONOTONIC on Linux, like the agent's clock
        final Instant startTime = Instant.now();
        final TraceHeader header = startHeader(options, pageSize, startTime);
        boolean kept = false;
        try (SharedMemory shm = SharedMemory.create(options, pageSize, startMonoNs))
        {
            final TraceWriter writer = keep ? TraceWriter.create(options.output, header) : null;
            try
            {
                holdBeforeTheProgramForTests();
                final TraceStats stats = new TraceStats(pageSize);
                stats.noticesTo(err);
                final Logger logger = new Logger(shm, writer, stats, options.chunkRecords);
                logger.publishTo(counts);
                logger.tee(tee);
                final Process process = startWithAgent(options.command, agent, shm, options.engine);
                logger.mainPid((int)process.pid());
                forwardSignals(process);
                final RecordingStop stop = new RecordingStop(options.output, startMonoNs);
                final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(100, 10, 1_000, 1_000_000),
                    t -> loggerFailed(t, stop, logger, shm), null, logger);
                // Agrona rethrows an Error after the error handler has seen it: the handler
                // already acted, so the dying thread says nothing more
                AgentRunner.startOnThread(runner, r -> {
                    final Thread thread = new Thread(r);
                    thread.setUncaughtExceptionHandler((t, e) -> { });
                    return thread;
                });
                final int exitStatus = process.waitFor();
                final long endMonoNs = System.nanoTime();
                // Agents in processes that outlive the program restore their pages and stop.
                shm.requestStop();
                runner.close();
                if (stop.happened())
                {
                    kept = true; // what was written before the stop is the user's
                    return stoppedEarly(stop, writer, header, stats, slotCounters(shm, logger), exitStatus,
                        endMonoNs - startMonoNs);
                }
                if (keep && writer.directoryReplaced())
                {
                    // the queue's files were unlinked with it and took the writes on: nothing fails
                    // until the header is written, and nothing of the trace is left to keep. Where
                    // Chronicle made the directory again for a file of its own, only the writes
                    // since are there: not a trace either, and the user removed it
                    kept = true;
                    writer.close();
                    writer.removeRemade();
                    err.printf("faultline record: the output directory %s was removed during the recording, and the "
                        + "trace with it; the program ran to its end (exit status %d)%n", options.output, exitStatus);
                    return notCompleted(exitStatus);
                }
                try
                {
                    try
                    {
                        if (keep)
                        {
                            writer.takeOver();
                        }
                        logger.drain();
                        if (keep)
                        {
                            writeExitEvent(writer, (int)process.pid(), exitStatus, shm.clock(), endMonoNs - startMonoNs);
                        }
                    }
                    catch (final RuntimeException ex)
                    {
                        // the file system filled (or the directory went) with the last writes, which are this
                        // thread's: the same end as a logger that failed during the run (an InternalError:
                        // the outer catch)
                        stop.stop(ex);
                        kept = true;
                        return stoppedEarly(stop, writer, header, stats, slotCounters(shm, logger), exitStatus,
                            endMonoNs - startMonoNs);
                    }
                    stats.events++;

                    final List<SlotCounters> slotCounters = slotCounters(shm, logger);
                    final String failure = agentFailure(slotCounters, program);
                    if (failure != null)
                    {
                        close(writer);
                        err.println("faultline record: " + failure);
                        return notCompleted(exitStatus);
                    }
                    final SlotCounters gaveUp = slotCounters.stream().filter(SlotCounters::gaveUpOnTheRecorder)
                        .min(Comparator.comparingLong(SlotCounters::stoppedMs)).orElse(null);
                    if (gaveUp != null)
                    {
                        kept = true;
                        return agentGaveUp(gaveUp, writer, header, stats, slotCounters, exitStatus,
                            endMonoNs - startMonoNs);
                    }
                    try
                    {
                        finish(writer, header, stats, slotCounters, exitStatus, endMonoNs - startMonoNs, err);
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        // the blocks still held or the final header did not fit
                        stop.stop(ex);
                        kept = true;
                        return stoppedEarly(stop, writer, header, stats, slotCounters, exitStatus, endMonoNs - startMonoNs);
                    }
                }
                catch (final InternalError ex)
                {
                    // Chronicle Queue writes through a memory mapping: a write that meets a full file
                    // system is a SIGBUS, which compiled code reports as an InternalError at its next
                    // safepoint, after the write's own try block may have ended (seen at the line after
                    // the exit event's), and wherever it surfaces here: the same end as the catches above
                    stop.stop(ex);
                    kept = true;
                    return stoppedEarly(stop, writer, header, stats, slotCounters(shm, logger), exitStatus,
                        endMonoNs - startMonoNs);
                }
                kept = true;
                if (!options.quiet)
                {
                    summary(stats, header.longValue(TraceHeader.RING_WAITS), endMonoNs - startMonoNs, exitStatus);
                }
                return exitStatus;
            }
            finally
            {
                close(writer);
                if (keep && !kept)
                {
                    deleteTrace(options.output, outputExisted);
                }
            }
        }
    }

    /**
     * For faultline's own tests ({@value #TEST_START_HOLD_ENV}=MS): the recorder waits that long
     * with its shared memory made and before the program starts, the window in which only the
     * guard (ShmGuard) can remove the file after a kill -9. The window is a few milliseconds
     * otherwise, too short for a test to hit.
     */
    private static void holdBeforeTheProgramForTests() throws InterruptedException
    {
        final String hold = System.getenv(TEST_START_HOLD_ENV);
        if (hold != null && hold.matches("\\d{1,6}"))
        {
            Thread.sleep(Long.parseLong(hold));
        }
    }

    /** See {@link #holdBeforeTheProgramForTests}. */
    public static final String TEST_START_HOLD_ENV = "FAULTLINE_TEST_START_HOLD_MS";

    private static void close(final TraceWriter writer)
    {
        if (writer != null)
        {
            writer.close();
        }
    }

    static TraceHeader startHeader(final RecordOptions options, final int pageSize, final Instant startTime)
    {
        return TraceHeader.create()
            .put(TraceHeader.STATE, TraceLayout.STATE_RECORDING)
            .put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
            .put(TraceHeader.FAULTLINE_VERSION, VERSION)
            .put(TraceHeader.PAGE_SIZE, pageSize)
            .put(TraceHeader.HOST, readProc("/proc/sys/kernel/hostname"))
            .put(TraceHeader.KERNEL, System.getProperty("os.name") + " " + readProc("/proc/sys/kernel/osrelease")
                + " " + System.getProperty("os.arch"))
            .put(TraceHeader.COMMAND, shellQuote(options.command))
            .put(TraceHeader.MODE, options.modeName())
            .put(TraceHeader.INTERVAL_NS, options.mocaIntervalNs)
            .put(TraceHeader.EVMS_PAGES, options.evmsPages)
            .put(TraceHeader.POLICY, options.policyName())
            .put(TraceHeader.LEAD_PAGES, options.effectiveLeadPages())
            .put(TraceHeader.TRAIL, options.trailName())
            .put(TraceHeader.DIRTY_TRACKING, options.dirtyTracking)
            // FAULTLINE_GATE=off (the agents inherit this environment) turns the gate off, and the events with it
            .put(TraceHeader.KERNEL_EVENTS, options.kernelEvents && !"off".equals(System.getenv("FAULTLINE_GATE")))
            .put(TraceHeader.SCOPE, options.scopeName())
            .put(TraceHeader.ENGINE, options.engineName())
            .put(TraceHeader.STACK_FRAMES, options.stackFrames)
            .put(TraceHeader.FOLLOW_FORKS, options.follow)
            .put(TraceHeader.RING_CAPACITY, options.ringCapacity)
            .put(TraceHeader.CHUNK_RECORDS, options.chunkRecords)
            .put(TraceHeader.START_TIME, startTime);
    }

    private static final String NO_RSEQ = "glibc.pthread.rseq=0";
    /**
     * No trimming of glibc's heaps under the sigbus engine without the system-call gate
     * (FAULTLINE_GATE=off; engine_sigbus.c): glibc trims with internal brk and madvise calls that
     * no wrapper sees, and a heap zapped so would get its parked pages back with their old
     * contents where glibc counts on zeros (calloc). The gate sees those calls and says them as
     * mapping events (gate.c). The largest value glibc takes (elf/dl-tunables.list: SIZE_MAX).
     */
    private static final String NO_TRIM = "glibc.malloc.trim_threshold=18446744073709551615";

    /**
     * Starts {@code command} with the agent preloaded and pointed at {@code shm}; its output is
     * ours. Under the in-thread engines (mprotect, sigbus) glibc is also asked
     * not to register restartable sequences (tunable glibc.pthread.rseq=0, inherited like
     * LD_PRELOAD), and under sigbus without the system-call gate not to trim its heaps (NO_TRIM). The kernel writes each thread's
     * rseq area, inside its struct pthread, on the way back to user space after every
     * preemption: a kernel-mode access, which under the mprotect engine fails on a disabled page,
     * and the kernel then kills the thread with SIGSEGV (SI_KERNEL). The agent pins descriptor
     * pages, yet threads churning through glibc's stack cache still died so (7 of 80 runs of
     * such a program here, 0 of 60 without rseq); glibc falls back to the getcpu system call.
     */
    public static Process startWithAgent(final List<String> command, final Path agent, final SharedMemory shm,
        final int engine)
    {
        final List<String> tunables = switch (engine)
        {
            case io.faultline.format.ShmLayout.ENGINE_MPROTECT -> List.of(NO_RSEQ);
            case io.faultline.format.ShmLayout.ENGINE_SIGBUS -> "off".equals(System.getenv("FAULTLINE_GATE"))
                ? List.of(NO_RSEQ, NO_TRIM) : List.of(NO_RSEQ);
            default -> List.of();
        };
        final ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        final Map<String, String> env = builder.environment();
        final String preload = env.get("LD_PRELOAD");
        env.put("LD_PRELOAD", preload == null || preload.isBlank() ? agent.toString() : agent + " " + preload);
        env.put(ShmLayout.ENV_SHM, shm.file().toString());
        // the launcher's word on the start state the JVM changed: the agent reads it from our own
        // environment (native-shims/src/launch.c), the program does not see it in its own
        env.remove("FAULTLINE_LAUNCH");
        // the shell's "_", which bash sets to the path of each command it runs: the launcher's
        // own ("-") becomes the program's, as bash would have set it running the program
        final String underscore = env.remove("FAULTLINE_UNDERSCORE");
        if (underscore != null)
        {
            env.put("_", "-".equals(underscore) ? Preflight.resolveProgram(command.get(0)).toString() : underscore);
        }
        for (final String tunable : tunables)
        {
            final String set = env.get("GLIBC_TUNABLES");
            env.put("GLIBC_TUNABLES", set == null || set.isBlank() ? tunable : set + ":" + tunable);
        }
        try
        {
            return builder.start();
        }
        catch (final IOException ex)
        {
            throw new RecordException("cannot start " + command.get(0) + ": " + ex.getMessage());
        }
    }

    /** SIGINT and SIGTERM go to the program; the recording completes when it exits. */
    public static void forwardSignals(final Process process)
    {
        for (final String name : List.of("INT", "TERM"))
        {
            final Signal signal = new Signal(name);
            Signal.handle(signal, s -> Libc.INSTANCE.kill((int)process.pid(), s.getNumber()));
        }
    }

    /**
     * The logger could not write the trace (a full file system, a removed directory): fail open.
     * The logger stops, the agents are told to stop, and since nothing drains their rings any
     * more they stop waiting for room, put every page back and let the program run on untraced
     * (native-shims, ring_put). The program's output and exit status stay its own.
     */
    private void loggerFailed(final Throwable throwable, final RecordingStop stop, final Logger logger,
        final SharedMemory shm)
    {
        if (stop.stop(throwable))
        {
            logger.halt();
            shm.requestStop();
        }
    }

    /**
     * The end of a recording whose logger failed: the trace is marked incomplete (if the file
     * system still takes its small header), and one line says what happened, from when, and
     * what was lost. The exit status is the program's if it failed, else 1: the recording did not
     * complete.
     */
    private int stoppedEarly(final RecordingStop stop, final TraceWriter writer, final TraceHeader header,
        final TraceStats stats, final List<SlotCounters> slots, final int exitStatus, final long durationNs)
    {
        long published = 0;
        for (final SlotCounters slot : slots)
        {
            published += slot.records();
        }
        // what reached the queue: the writer holds a process's references a while before it writes their block
        final long written = writer != null ? writer.referencesWritten() : stats.references;
        try
        {
            header.put(TraceHeader.END_TIME, Instant.now())
                .put(TraceHeader.DURATION_NS, durationNs)
                .put(TraceHeader.EXIT_STATUS, exitStatus)
                .put(TraceHeader.REFERENCES, written)
                .put(TraceHeader.AGENT_RECORDS, published)
                .put(TraceHeader.STOP_CAUSE, stop.cause())
                .put(TraceHeader.STOPPED_NS, stop.atNs());
            if (writer != null)
            {
                writer.finishIncomplete(header);
            }
        }
        catch (final IOException | RuntimeException | InternalError ex)
        {
            // the header stays state=recording: still read as a partial trace (an InternalError is a
            // store into the full file system's mapped queue file, TraceWriter.settle)
        }
        return saidStopped(stop.atNs(), stop.cause(), writer != null ? writer.referencesWritten() : written, published,
            exitStatus, stop.atNs() >= durationNs);
    }

    /**
     * The end of a recording during which an agent took the recorder for gone: nothing drained
     * its ring for 10 s (the recorder was stopped, say by SIGSTOP or a debugger, or starved of
     * CPU), so it stopped tracing and let its process run on untraced rather than wait (native-shims,
     * ring_put). The logger is well and drained everything that was published before that: the
     * trace keeps it all, with every statistic, marked incomplete with the cause and when.
     */
    private int agentGaveUp(final SlotCounters slot, final TraceWriter writer, final TraceHeader header,
        final TraceStats stats, final List<SlotCounters> slots, final int exitStatus, final long durationNs)
        throws IOException
    {
        final long published = fillHeader(header, stats, slots, exitStatus, durationNs).total;
        final String cause = "nothing drained the ring of pid " + slot.pid() + " for 10 s, as when the recorder "
            + "is stopped or starved of CPU, so its agent stopped tracing";
        final long atNs = slot.stoppedMs() * 1_000_000L;
        header.put(TraceHeader.STOP_CAUSE, cause).put(TraceHeader.STOPPED_NS, atNs);
        if (writer != null)
        {
            writer.finishIncomplete(header);
        }
        return saidStopped(atNs, cause, stats.references, published, exitStatus, false);
    }

    /** record's status when the trace did not complete: the program's if it failed, else 1. */
    private static int notCompleted(final int exitStatus)
    {
        return exitStatus != 0 ? exitStatus : 1;
    }

    /**
     * The one line a recording that stopped early ends with; its exit status (the program's, else
     * 1). {@code afterTheProgram}: the stop came with the trace's last writes, after the program's
     * exit, so nothing of the program ran untraced.
     */
    private int saidStopped(final long atNs, final String cause, final long written, final long published,
        final int exitStatus, final boolean afterTheProgram)
    {
        err.printf("faultline record: recording stopped %.2f s into the run: %s; %,d references were written, "
                + "%,d more that the agents published were not, and the program %s (exit status %d); %s%n",
            atNs / 1e9, cause, written, Math.max(0, published - written),
            afterTheProgram ? "had already run to its end" : "ran on to its end untraced", exitStatus,
            options.output == null ? "no trace was kept (no -o)" : Files.isDirectory(options.output)
                ? options.output + " holds an incomplete trace" : "the trace went with its directory");
        return notCompleted(exitStatus);
    }

    private static void writeExitEvent(final TraceWriter writer, final int pid, final int exitStatus, final long seq,
        final long timeNs)
    {
        final UnsafeBuffer event = new UnsafeBuffer(new byte[EventDescriptor.HEADER_SIZE]);
        final int length = EventDescriptor.encode(event, EventType.PROCESS_EXIT, pid, pid, seq, timeNs, exitStatus, 0, 0, 0,
            new byte[0]);
        writer.write(TraceLayout.EXCERPT_EVENT, event, 0, length);
    }

    /** Every slot's report: those given back during the recording, then those still held. */
    static List<SlotCounters> slotCounters(final SharedMemory shm, final Logger logger)
    {
        final List<SlotCounters> all = new ArrayList<>(logger.retired());
        for (int slot = 0; slot < logger.slotsInUse(); slot++)
        {
            if (shm.slotState(slot) != ShmLayout.SLOT_FREE)
            {
                all.add(SlotCounters.read(shm, slot, logger.threadRingTotals(slot)));
            }
        }
        return all;
    }

    /** @return why the trace must not be kept, or null if every agent traced to the end */
    private String agentFailure(final List<SlotCounters> slots, final Path program)
    {
        if (slots.isEmpty())
        {
            return program + " never loaded the agent (is it statically linked, setuid, or does it clear "
                + "LD_PRELOAD?); nothing was traced and no trace was kept";
        }
        return agentStopped(slots);
    }

    /** @return why an agent stopped tracing before it was asked to, or null */
    static String agentStopped(final List<SlotCounters> slots)
    {
        for (final SlotCounters slot : slots)
        {
            if (slot.stoppedOnError())
            {
                final int errno = slot.error();
                return "the agent in pid " + slot.pid() + " stopped tracing: "
                    + Libc.INSTANCE.strerror(errno) + " (errno " + errno + ")" + hint(errno)
                    + "; the trace would be incomplete, so it was not kept";
            }
        }
        return null;
    }

    private static String hint(final int errno)
    {
        return errno == 1 || errno == 13
            ? "; give this user read-write access to /dev/userfaultfd or run sysctl vm.unprivileged_userfaultfd=1"
            : "";
    }

    static void finish(final TraceWriter writer, final TraceHeader header, final TraceStats stats,
        final List<SlotCounters> slots, final int exitStatus, final long durationNs, final PrintStream err)
        throws IOException
    {
        final ThreadLedger ledger = fillHeader(header, stats, slots, exitStatus, durationNs);
        if (ledger.total != stats.references)
        {
            err.println("faultline record: warning: the agents published " + ledger.total
                + " records but the trace holds " + stats.references);
        }
        ledger.differences.forEach(d -> err.println("faultline record: warning: " + d));
        if (writer != null)
        {
            writer.finish(header);
        }
    }

    /**
     * The header's end of a recording: its statistics, per process and per thread, each thread's
     * records checked against its agent's ledger; returns that check.
     */
    private static ThreadLedger fillHeader(final TraceHeader header, final TraceStats stats, final List<SlotCounters> slots,
        final int exitStatus, final long durationNs)
    {
        long agentRecords = 0;
        long ringWaits = 0;
        long ringWaitNs = 0;
        long evictions = 0;
        long races = 0;
        long disableNs = 0;
        for (final SlotCounters slot : slots)
        {
            agentRecords += slot.records();
            ringWaits += slot.ringWaits();
            ringWaitNs += slot.ringWaitNs();
            evictions += slot.evictions();
            races += slot.races();
            disableNs += slot.disableNs();
            final TraceStats.ProcessStats process = stats.process(slot.pid());
            if (process.ppid == 0)
            {
                process.ppid = slot.ppid();
            }
        }
        final ThreadLedger ledger = ThreadLedger.check(slots, stats);
        ledger.total = agentRecords;
        header.put(TraceHeader.END_TIME, Instant.now())
            .put(TraceHeader.DURATION_NS, durationNs)
            .put(TraceHeader.EXIT_STATUS, exitStatus)
            .put(TraceHeader.REFERENCES, stats.references)
            .put(TraceHeader.READS, stats.reads)
            .put(TraceHeader.WRITES, stats.writes)
            .put(TraceHeader.DISTINCT_PAGES, stats.distinctPages())
            .put(TraceHeader.PROCESSES, stats.processes().size())
            .put(TraceHeader.THREADS, stats.threads().size())
            .put(TraceHeader.CHUNKS, stats.chunks)
            .put(TraceHeader.EVENTS, stats.events)
            .put(TraceHeader.AGENT_RECORDS, agentRecords)
            .put(TraceHeader.UNMATCHED_THREADS, ledger.differences.size())
            .put(TraceHeader.RING_WAITS, ringWaits)
            .put(TraceHeader.RING_WAIT_NS, ringWaitNs)
            .put(TraceHeader.EVICTIONS, evictions)
            .put(TraceHeader.RACES, races);
        if (TraceHeader.MODE_MOCA.equals(header.get(TraceHeader.MODE)))
        {
            header.put(TraceHeader.DISABLE_NS, disableNs);
        }
        for (final TraceStats.ProcessStats p : stats.processes().values())
        {
            header.put(TraceHeader.PROCESS_PREFIX + p.pid, "ppid=" + p.ppid + " references=" + p.references
                + " exe=" + p.executable);
        }
        for (final TraceStats.Untraced u : stats.untraced().values())
        {
            header.put(TraceHeader.UNTRACED_PREFIX + u.pid(), "why=" + u.why() + " machine=" + u.machine() + " exe="
                + u.executable());
        }
        for (final TraceStats.ThreadStats t : stats.threads().values())
        {
            final Long published = ledger.published.get(t.tid);
            header.put(TraceHeader.THREAD_PREFIX + t.tid, "pid=" + t.pid + " references=" + t.references
                + (published == null ? "" : " published=" + published)
                + " reads=" + t.reads + " writes=" + t.writes + " name=" + t.name);
        }
        return ledger;
    }

    private void summary(final TraceStats stats, final long ringWaits, final long durationNs, final int exitStatus)
    {
        err.printf("faultline: %,d references (%,d read fault%s, %,d write fault%s) to %,d pages, %,d of them written, "
                + "from %d process(es), %d thread(s) in %.2f s into %s; ring waits %d; exit status %d%n",
            stats.references, stats.reads, stats.reads == 1 ? "" : "s", stats.writes, stats.writes == 1 ? "" : "s",
            stats.distinctPages(), stats.writtenPages(), stats.processes().size(),
            stats.threads().size(), durationNs / 1e9, options.output == null ? "no trace (no -o)" : options.output,
            ringWaits, exitStatus);
    }

    static void deleteTrace(final Path dir, final boolean dirExisted)
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> files = Files.walk(dir))
        {
            final List<Path> all = new ArrayList<>(files.sorted(Comparator.reverseOrder()).toList());
            if (dirExisted)
            {
                all.remove(dir);
            }
            for (final Path p : all)
            {
                Files.deleteIfExists(p);
            }
        }
        catch (final IOException ignored)
        {
            // best effort: the header still says state=recording, so no reader takes it for a trace
        }
    }

    private static String readProc(final String file)
    {
        try
        {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    static String shellQuote(final List<String> words)
    {
        final StringBuilder out = new StringBuilder();
        for (final String word : words)
        {
            if (out.length() > 0)
            {
                out.append(' ');
            }
            if (!word.isEmpty() && word.matches("[A-Za-z0-9_@%+=:,./-]+"))
            {
                out.append(word);
            }
            else
            {
                out.append('\'').append(word.replace("'", "'\\''")).append('\'');
            }
        }
        return out.toString();
    }
}
