package io.faultline.damon.live;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.faultline.damon.AddressRange;
import io.faultline.damon.Attributes;
import io.faultline.damon.DamonContext;
import io.faultline.damon.DamonRandom;
import io.faultline.damon.MonitorClock;
import io.faultline.damon.Target;
import io.faultline.damon.record.MonitorRecordLayout;
import io.faultline.damon.record.MonitorRecordWriter;
import io.faultline.damon.schemes.Scheme;
import io.faultline.format.ShmLayout;
import io.faultline.format.TraceHeader;
import io.faultline.tracer.AgentLibrary;
import io.faultline.tracer.CompilerThreads;
import io.faultline.tracer.EngineChoice;
import io.faultline.tracer.Preflight;
import io.faultline.tracer.RecordOptions;
import io.faultline.tracer.Recorder;
import io.faultline.tracer.SharedMemory;

/**
 * {@code faultline monitor -- PROGRAM}: starts the program with the agent in monitor mode (it
 * records nothing and keeps no EVMS; it only answers access checks) and runs DAMON's core over
 * it here, in the recorder's process, with the {@code vaddr} or {@code fvaddr} operations set.
 * Every aggregation goes into a monitoring record. The target is the program's process (its
 * image after an exec too); children it forks are not monitored. Exit status as {@code record}.
 */
public final class LiveMonitor
{
    /** What one run produced. */
    public record Result(int exitStatus, long aggregations, long checks, long faults, long requests, long requestNs,
        long durationNs, String ops)
    {
    }

    /**
     * The running program, for a progress line drawn on another thread: its pid, the
     * aggregations written so far and the faults its agents handled (every access check that
     * found its page accessed); both suppliers are safe to call from any thread.
     */
    public record Watch(int pid, LongSupplier aggregations, LongSupplier faults)
    {
    }

    /** Process slots: the program and the images it execs. */
    private static final int SLOTS = 16;
    /** Each slot's ring carries events only. */
    private static final int RING_BYTES = 1 << 20;

    /**
     * Every slot has a sampling board of --max-regions entries, and the recorder maps the shared
     * memory as one buffer that Java indexes with an int: checked before the program starts.
     */
    static void boardsFit(final int maxRegions, final int pageSize)
    {
        if (ShmLayout.fileSize(SLOTS, RING_BYTES, pageSize, maxRegions) <= Integer.MAX_VALUE)
        {
            return;
        }
        int fits = 1; // the most regions that fit: a binary search between 1 and maxRegions
        int over = maxRegions;
        while (over - fits > 1)
        {
            final int mid = fits + (over - fits) / 2;
            if (ShmLayout.fileSize(SLOTS, RING_BYTES, pageSize, mid) <= Integer.MAX_VALUE)
            {
                fits = mid;
            }
            else
            {
                over = mid;
            }
        }
        throw new MonitorException("--max-regions " + maxRegions + " gives each of the " + SLOTS + " process images a "
            + "sampling board larger than the 2 GiB of shared memory a live monitor maps; give --max-regions " + fits
            + " or fewer");
    }

    /** How long the agent may take to start in the program before monitoring gives up on it. */
    private static final long AGENT_START_NS = 10_000_000_000L;

    private LiveMonitor()
    {
    }

    /**
     * @param fixed ranges for fvaddr, or null for vaddr
     * @param scope ShmLayout.SCOPE_ALL, or SCOPE_API for the ranges the program registers
     * @param engine ShmLayout.ENGINE_UFFD or ENGINE_SIGBUS, or -1: the userfaultfd engine where this
     *     user may have it, else the sigbus engine, with a note (EngineChoice)
     */
    public static Result run(final List<String> command, final Path out, final Attributes attrs, final long seed,
        final List<Scheme> schemes, final List<AddressRange> fixed, final int scope, final int engine,
        final PrintWriter err, final Consumer<Watch> watching) throws Exception
    {
        attrs.validated();
        MonitorRecordWriter.checkSchemes(schemes);
        boardsFit(attrs.maxNrRegions(), RecordOptions.systemPageSize());
        final Path program = Preflight.resolveProgram(command.get(0));
        Preflight.checkLoadsAgent(program);
        final RecordOptions options = new RecordOptions();
        if (engine >= 0)
        {
            options.engine = engine;
            options.engineChosen = true;
        }
        final String note = EngineChoice.choose(options, "monitor", false);
        if (note != null)
        {
            err.println(note);
            err.flush();
        }
        final Path agent = AgentLibrary.locate();
        final int pageSize = RecordOptions.systemPageSize();

        options.command = command;
        options.scope = scope;
        options.follow = false;
        options.followExec = true; // the target is the process, whatever image it runs
        options.slots = SLOTS; // the program and the images it execs
        options.ringCapacity = RING_BYTES; // events only
        options.threadRings = 0; // checks publish nothing
        options.boardEntries = attrs.maxNrRegions();
        final String ops = fixed == null ? "vaddr" : "fvaddr";
        final TraceHeader start = MonitorRecordWriter.header(attrs, ops, pageSize, seed, schemes)
            .put(TraceHeader.PAGE_SIZE, pageSize)
            .put(TraceHeader.COMMAND, String.join(" ", command))
            .put(TraceHeader.ENGINE, options.engineName());
        CompilerThreads.yieldToProgram(); // our JIT's catching up must not take the program's CPUs
        try (SharedMemory shm = SharedMemory.create(options, pageSize, System.nanoTime());
             MonitorRecordWriter writer = MonitorRecordWriter.create(out, start);
             AgentLink link = new AgentLink(shm))
        {
            // time 0 of the record: the program's start (the queue's and the shared memory's set-up is ours)
            final long startNs = System.nanoTime();
            start.put(MonitorRecordLayout.START_MONO_NS, startNs);
            final Process process = Recorder.startWithAgent(command, agent, shm, options.engine);
            // the program's end, when it happens: the sampling loop below notices it only at its next
            // sampling interval, which would count up to one interval (or --sample's value) as the program's
            final ExitTime exitNs = new ExitTime(process);
            Recorder.forwardSignals(process);
            final int pid = (int)process.pid();
            watching.accept(new Watch(pid, writer::aggregations, () -> faults(shm)));
            link.watch(process);
            start.put(MonitorRecordLayout.TARGETS_KEY, String.valueOf(pid));
            final VaddrOperations vaddr = new VaddrOperations(link, fixed);
            long aggregations = 0;
            try
            {
                if (awaitAgent(link, pid, process, err))
                {
                    final DamonContext ctx = new DamonContext(attrs, vaddr, writer, DamonRandom.seeded(seed),
                        MonitorClock.since(startNs), pageSize);
                    ctx.addTarget(new Target(pid));
                    schemes.forEach(ctx::addScheme);
                    ctx.run();
                    aggregations = writer.aggregations();
                    if (aggregations > 0 && vaddr.armed() == 0)
                    {
                        err.println("faultline monitor: warning: no sampling address ever fell in memory the agent traces"
                            + (fixed != null ? " (check --range against /proc/" + pid + "/maps: private anonymous"
                            + " writable memory only)" : "") + "; every region reads as never accessed");
                    }
                }
            }
            finally
            {
                // whatever happened here, the program runs on with all its pages home
                shm.requestStop();
            }
            final int exitStatus = process.waitFor(); // 128+N for a death by signal N, as the shell says
            final long durationNs = exitNs.awaitNs() - startNs;
            final TraceHeader end = TraceHeader.create();
            start.values().forEach(end::put);
            end.put(TraceHeader.END_TIME, Instant.now());
            end.put(TraceHeader.DURATION_NS, durationNs);
            end.put(TraceHeader.EXIT_STATUS, exitStatus);
            writer.finish(end);
            final AgentLink.CheckStats stats = link.stats();
            return new Result(exitStatus, aggregations, stats.checkFaults(), stats.faults(), stats.requests(), stats.requestNs(),
                durationNs, ops);
        }
    }

    /** Faults every agent handled: counters in shared memory, which any thread may read. */
    private static long faults(final SharedMemory shm)
    {
        long faults = 0;
        for (int slot = 0; slot < shm.slotCount(); slot++)
        {
            faults += shm.slotLong(slot, ShmLayout.SLOT_FAULTS);
        }
        return faults;
    }

    /** Waits until the program's agent has claimed its slot and said what it traces. */
    private static boolean awaitAgent(final AgentLink link, final int pid, final Process process, final PrintWriter err)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + AGENT_START_NS;
        while (System.nanoTime() < deadline)
        {
            link.poll();
            if (link.board(pid) != null && link.alive(pid) && !link.traced(pid).isEmpty())
            {
                return true;
            }
            if (!process.isAlive())
            {
                return false; // ended before its agent said anything: nothing to monitor
            }
            Thread.sleep(1);
        }
        err.println("faultline monitor: the agent did not start in pid " + pid + " within 10 s; the program runs"
            + " unmonitored");
        return false;
    }

    /**
     * When the program ended, taken by a thread that waits for it and nothing else. Not {@code
     * onExit()}: its future completes through the common pool, a hop that counted up to 13 ms more
     * than the program ran (a 48 ms {@code sort}, the pool's thread started behind a collection).
     */
    private static final class ExitTime
    {
        private final Thread waiter;
        private volatile long ns;

        ExitTime(final Process process)
        {
            waiter = new Thread(() ->
            {
                boolean ended = false;
                while (!ended)
                {
                    try
                    {
                        process.waitFor();
                        ended = true;
                    }
                    catch (final InterruptedException ignored)
                    {
                        // nobody interrupts this thread; the program's end is what it waits for
                    }
                }
                ns = System.nanoTime();
            }, "faultline-program-exit");
            waiter.setDaemon(true);
            waiter.start();
        }

        /** System.nanoTime() at the program's end, once it has ended */
        long awaitNs() throws InterruptedException
        {
            waiter.join();
            return ns;
        }
    }
}
