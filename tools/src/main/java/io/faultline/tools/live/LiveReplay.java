package io.faultline.tools.live;

import io.faultline.sim.LiveSweep;
import io.faultline.sim.PolicySpec;
import io.faultline.sim.SimulationResult;
import io.faultline.sim.mrc.LruCurve;
import io.faultline.sim.mrc.MissRatioCurve;
import io.faultline.tracer.ExcerptTee;
import io.faultline.tracer.Libc;
import org.agrona.collections.LongHashSet;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code record --live}: replays the references of a recording while the program runs into the
 * exact LRU miss-ratio curve ({@link LruCurve}, what {@code mrc} computes) and any policies at any
 * sizes ({@link LiveSweep}, what {@code simulate} replays), in the trace's order, so that the
 * results at the end equal {@code mrc} and {@code simulate} of the trace the recording wrote.
 * <p>
 * The recorder's drain thread only copies each record into a {@link Backlog} ({@link #tee()});
 * this class's own thread, at nice 19, takes them from there, orders them by seq
 * ({@link SeqOrder}) and replays them. A replay slower than the recording lets the backlog grow,
 * into the heap up to a bound and then into spill files, and catches up when the program lets
 * it (at the end at the latest: {@link #finish} replays everything before it returns); the
 * program and the recording never wait for it. Every {@link #SNAPSHOT_NS} the thread publishes a
 * {@link Snapshot} for the terminal.
 * <p>
 * The working set shown is Denning's W(t, tau) ("The working set model for program behavior",
 * CACM 11(5), 1968) with tau = 1 s of the program's time, sampled at each whole second: the
 * distinct pages of the references recorded in the last whole second. The recorded references
 * are those that missed the EVMS, so pages that stayed in the EVMS the whole second are not in
 * it: it is the working set to within the EVMS's pages.
 */
public final class LiveReplay
{
    /** How often the replay thread publishes what it has. */
    public static final long SNAPSHOT_NS = TimeUnit.MILLISECONDS.toNanos(200);
    /** The working set's window, tau, in the program's time. */
    static final long WINDOW_NS = TimeUnit.SECONDS.toNanos(1);
    /** The widest out-of-order span SeqOrder holds before it gives a missing seq up (16 bytes each). */
    static final int MAX_REORDER = 1 << 22;
    /** Records taken from the backlog at once. */
    private static final int BATCH = 4096;
    private static final long IDLE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * For faultline's own tests: the replay takes nothing until the recording has ended, as a
     * replay that falls behind all the way does, so that the backlog spills whatever its bound.
     */
    static final String TEST_HOLD_ENV = "FAULTLINE_TEST_LIVE_HOLD";

    /** What the terminal shows: the state of the replay at one moment. */
    public record Snapshot(long replayed, long lag, long spilled, int distinct, int workingSet, int[] sizes,
        long[] lruMisses, long[] sweepMisses, long elapsedNs)
    {
    }

    /** The results at the end. */
    public record Result(MissRatioCurve curve, List<SimulationResult> simulations, long references, long skipped,
        long late, long spilled, long maxLag, long cpuNs, String failure)
    {
        /** Whether the results are those of an offline replay of the same trace. */
        public boolean exact()
        {
            return failure == null && skipped == 0 && late == 0;
        }
    }

    private final Backlog backlog;
    private final ReferenceTee tee;
    private final SeqOrder order;
    private final LruCurve curve = new LruCurve();
    private final LiveSweep sweep;
    private final int[] sizes;
    private final OptionalInt maxSize;
    private final LongHashSet window = new LongHashSet();
    private final Thread thread;
    private final long startNs = System.nanoTime();
    private long windowEndNs = WINDOW_NS;
    private int workingSet;
    private volatile Snapshot snapshot;
    private volatile boolean finishing;
    /** The most references the replay was behind at a snapshot. */
    private long maxLag;
    /** CPU time of the replay thread, idle polls included: what the replay cost. */
    private long cpuNs;
    private volatile Throwable crashed;

    /**
     * @param pageSize      bytes per page, the recording's
     * @param specs         policies to replay besides the LRU curve, none of them {@code opt}
     * @param capacities    their sizes in pages
     * @param shownSizes    sizes whose LRU misses the snapshots carry, ascending
     * @param maxSize       the curve's largest size at the end, as mrc's {@code --max-size}
     * @param backlogBytes  heap the backlog may hold before it spills
     * @param spillDir      where spill files go
     * @throws IllegalArgumentException         for a bad policy or size (one line)
     * @throws io.faultline.sim.LimitException  for pairs that do not fit (one line)
     */
    public LiveReplay(final int pageSize, final List<PolicySpec> specs, final int[] capacities, final int[] shownSizes,
        final OptionalInt maxSize, final long backlogBytes, final Path spillDir)
    {
        this.sweep = specs.isEmpty() ? null : new LiveSweep(specs, capacities);
        this.sizes = shownSizes.clone();
        this.maxSize = maxSize;
        this.backlog = new Backlog(backlogBytes / (Backlog.FIELDS * Long.BYTES), spillDir);
        this.tee = new ReferenceTee(backlog, pageSize);
        this.order = new SeqOrder(MAX_REORDER, this::replay);
        this.thread = new Thread(this::run, "faultline-live");
        this.thread.setDaemon(true);
    }

    /** What the recorder hands every excerpt to. */
    public ExcerptTee tee()
    {
        return tee;
    }

    public LiveReplay start()
    {
        thread.start();
        return this;
    }

    /** The latest snapshot, or null before the first. */
    public Snapshot snapshot()
    {
        return snapshot;
    }

    /**
     * After the recording has ended (every excerpt handed over): replays what is left, then
     * returns the results.
     */
    public Result finish() throws InterruptedException
    {
        finishing = true;
        LockSupport.unpark(thread);
        thread.join();
        backlog.discard();
        if (crashed != null)
        {
            throw new IllegalStateException("the live replay failed: " + crashed, crashed);
        }
        if (sweep != null && backlog.failure() == null)
        {
            sweep.finished();
        }
        return new Result(curve.curve(maxSize), sweep == null ? List.of() : sweep.results(curve.distinct()),
            curve.references(), order.skipped(), order.late(), backlog.spilled(), maxLag, cpuNs,
            backlog.failure() == null ? null : backlog.failure() + "; " + backlog.dropped() + " references were not replayed");
    }

    /** The pairs each reference updates besides the curve. */
    public int pairs()
    {
        return sweep == null ? 0 : sweep.pairs();
    }

    private void run()
    {
        yieldToProgram();
        if ("1".equals(System.getenv(TEST_HOLD_ENV)))
        {
            while (!finishing)
            {
                LockSupport.parkNanos(IDLE_PARK_NS);
            }
        }
        final long[] batch = new long[BATCH * Backlog.FIELDS];
        long nextSnapshotNs = System.nanoTime() + SNAPSHOT_NS;
        try
        {
            while (true)
            {
                // read before polling: once finishing is seen, a poll that finds nothing means the end
                final boolean last = finishing;
                final int n = backlog.poll(batch);
                for (int i = 0; i < n * Backlog.FIELDS; i += Backlog.FIELDS)
                {
                    order.add(batch[i], batch[i + 1], batch[i + 2]);
                }
                final long now = System.nanoTime();
                if (now >= nextSnapshotNs)
                {
                    nextSnapshotNs = now + SNAPSHOT_NS;
                    publish(now);
                }
                if (n == 0)
                {
                    if (last || backlog.failure() != null)
                    {
                        break;
                    }
                    LockSupport.parkNanos(IDLE_PARK_NS);
                }
            }
            order.flush();
            publish(System.nanoTime());
            cpuNs = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        }
        catch (final RuntimeException | Error ex)
        {
            crashed = ex;
            backlog.abandon("the replay failed (" + ex + ")");
        }
    }

    private void replay(final long page, final long timeNs)
    {
        curve.record(page);
        if (sweep != null)
        {
            sweep.record(page);
        }
        if (timeNs >= windowEndNs)
        {
            // a whole second ended: its pages are W(t, 1 s); a second with no reference had none
            workingSet = timeNs >= windowEndNs + WINDOW_NS ? 0 : window.size();
            window.clear();
            windowEndNs = (timeNs / WINDOW_NS + 1) * WINDOW_NS;
        }
        window.add(page);
    }

    private void publish(final long now)
    {
        final long[] misses = new long[sweep == null ? 0 : sweep.pairs()];
        for (int i = 0; i < misses.length; i++)
        {
            misses[i] = sweep.misses(i);
        }
        final long lag = backlog.lag() + order.held();
        maxLag = Math.max(maxLag, lag);
        snapshot = new Snapshot(curve.references(), lag, backlog.spilled(), curve.distinct(),
            workingSet, sizes, curve.misses(sizes), misses, now - startNs);
    }

    /** nice 19 for this thread alone (Linux's setpriority on a thread id): the program's CPU comes first. */
    private static void yieldToProgram()
    {
        try
        {
            final String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
            final int tid = Integer.parseInt(self.substring(self.lastIndexOf('/') + 1));
            Libc.INSTANCE.setpriority(0, tid, 19);
        }
        catch (final IOException | RuntimeException | UnsatisfiedLinkError ex)
        {
            // best effort: the replay then competes with the program like any thread
        }
    }
}
