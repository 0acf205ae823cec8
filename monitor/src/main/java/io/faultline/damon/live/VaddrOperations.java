package io.faultline.damon.live;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.faultline.tracer.Libc;
import io.faultline.damon.AccessRate;
import io.faultline.damon.AddressRange;
import io.faultline.damon.DamonContext;
import io.faultline.damon.MonitorClock;
import io.faultline.damon.Operations;
import io.faultline.damon.Region;
import io.faultline.damon.Target;
import io.faultline.damon.TargetRegions;
import io.faultline.damon.SchemeAction;
import io.faultline.damon.ops.ThreeRegions;
import io.faultline.damon.schemes.Applied;
import io.faultline.damon.schemes.Scheme;
import com.sun.jna.Memory;

/**
 * The {@code vaddr} and {@code fvaddr} operations sets over a live process (mm/damon/vaddr.c),
 * through the agent's access checks ({@link SamplingBoard}; native-shims/src/mode_monitor.c). A
 * target is a process id.
 *
 * <p>{@code vaddr}'s address space is the memory the agent traces: every private anonymous
 * writable mapping (heap, stacks, anonymous mmaps, .bss) that scope {@code all} registers, as
 * the agent's trace-range and unmap events describe it. The kernel's vaddr also covers code and
 * file mappings; user space can only check accesses to memory userfaultfd can trap, so those are
 * left out rather than reported as never accessed. Initial and updated regions are the kernel's
 * three regions (the two biggest gaps left out, {@link ThreeRegions}). Besides the kernel's
 * update every operations-update interval, the regions are updated as soon as the agent reports
 * traced memory they leave out ({@link #uncoveredMemory}): the monitor starts with the program,
 * and a program that maps its data just after the initial regions are built would otherwise go
 * unmonitored for its first second (hot_cold, in 1 of 3 suites on this 2-core machine).
 *
 * <p>{@code fvaddr} monitors fixed ranges given by the user (damon_fvaddr has no init or update
 * of its own); a sampling address outside traced memory cannot be checked and counts as not
 * accessed, as an unmapped address does for the kernel.
 *
 * <p>An access check, damon_va_prepare_access_checks / damon_va_check_accesses: a random
 * sampling address per region (damon_rand, as the kernel), its page disabled by the agent
 * (the kernel clears the accessed bit), and after one sampling interval the agent says whether
 * the page faulted since (the kernel reads the bit back). The interval is timed in the agent's
 * deadline loop, which closes the window; the core, in this process, waits for the close
 * ({@link #awaitSampleInterval}) where kdamond sleeps.
 */
public final class VaddrOperations implements Operations
{
    private final AgentLink link;
    private final List<AddressRange> fixed;
    private long[] addresses = new long[0];
    private long armed;

    /** @param fixed the fvaddr ranges, or null for vaddr */
    VaddrOperations(final AgentLink link, final List<AddressRange> fixed)
    {
        this.link = link;
        this.fixed = fixed;
    }

    @Override
    public String id()
    {
        return fixed == null ? "vaddr" : "fvaddr";
    }

    private List<AddressRange> ranges(final DamonContext ctx, final Target t)
    {
        if (fixed != null)
        {
            return fixed;
        }
        link.poll();
        return ThreeRegions.of(link.traced((int)t.id()), ctx.minRegionSize(), true);
    }

    /** damon_va_init(): only targets that have no regions yet. */
    @Override
    public void init(final DamonContext ctx)
    {
        for (final Target t : ctx.targets())
        {
            if (t.nrRegions() == 0)
            {
                if (fixed != null)
                {
                    TargetRegions.set(t, fixed, ctx.minRegionSize());
                }
                else
                {
                    ThreeRegions.initRegions(ctx, t, ranges(ctx, t));
                }
            }
        }
    }

    /**
     * damon_va_update(), but memory no region covered gets regions as init would give it
     * ({@link ThreeRegions#coverNewMemory}); fvaddr's ranges never change.
     */
    @Override
    public void update(final DamonContext ctx)
    {
        if (fixed != null)
        {
            return;
        }
        for (final Target t : ctx.targets())
        {
            final List<AddressRange> ranges = ranges(ctx, t);
            if (!ranges.isEmpty())
            {
                ThreeRegions.coverNewMemory(ctx, t, ranges);
                TargetRegions.set(t, ranges, ctx.minRegionSize());
            }
        }
    }

    /** Each target's {@link AgentLink#growth} when it was last compared with the regions. */
    private final Map<Integer, Long> growthSeen = new HashMap<>();

    /**
     * vaddr: whether a target's traced memory grew since last asked and some of it lies outside
     * every region. Asked after every sample; the traced ranges are walked only after a growth,
     * so a program that maps nothing costs a map lookup.
     */
    @Override
    public boolean uncoveredMemory(final DamonContext ctx)
    {
        if (fixed != null)
        {
            return false;
        }
        boolean uncovered = false;
        for (final Target t : ctx.targets())
        {
            final int pid = (int)t.id();
            final long growth = link.growth(pid);
            final Long seen = growthSeen.put(pid, growth);
            if ((seen == null || seen != growth) && !TargetRegions.uncovered(t.regions(), link.traced(pid)).isEmpty())
            {
                uncovered = true;
            }
        }
        return uncovered;
    }

    @Override
    public void prepareAccessChecks(final DamonContext ctx) throws InterruptedException
    {
        link.poll(); // events first: the agent must not wait on a full ring
        for (final Target t : ctx.targets())
        {
            final List<Region> regions = t.regions();
            if (addresses.length < regions.size())
            {
                addresses = new long[regions.size()];
            }
            for (int i = 0; i < regions.size(); i++)
            {
                final Region r = regions.get(i);
                r.samplingAddr(ctx.random().rand(r.start(), r.end()));
                addresses[i] = r.samplingAddr();
            }
            final int pid = (int)t.id();
            final SamplingBoard board = link.board(pid);
            if (board != null && link.alive(pid))
            {
                board.arm(addresses, Math.min(regions.size(), board.capacity()), ctx.attrs().sampleIntervalUs(),
                    () -> link.alive(pid));
            }
        }
    }

    /** Targets whose window the agent closed, by pid: their boards hold this sample's answers. */
    private final Set<Integer> answered = new HashSet<>();

    /**
     * The agent's deadline loop times each window (mode_monitor.c): the core waits for each target's
     * close instead of sleeping, and sleeps only when no window was closed.
     */
    @Override
    public void awaitSampleInterval(final DamonContext ctx, final MonitorClock clock) throws InterruptedException
    {
        answered.clear();
        for (final Target t : ctx.targets())
        {
            final int pid = (int)t.id();
            final SamplingBoard board = link.board(pid);
            if (board != null && link.alive(pid) && board.awaitClosed(() -> link.alive(pid)))
            {
                answered.add(pid);
            }
        }
        if (answered.isEmpty())
        {
            // no window was closed (nothing armed, or no agent answered): the loop must not spin
            clock.sleepUs(ctx.attrs().sampleIntervalUs());
        }
    }

    @Override
    public int checkAccesses(final DamonContext ctx)
    {
        int max = 0;
        for (final Target t : ctx.targets())
        {
            final int pid = (int)t.id();
            final List<Region> regions = t.regions();
            final SamplingBoard board = link.board(pid);
            final int n = board == null ? 0 : Math.min(regions.size(), board.capacity());
            final boolean answered = board != null && this.answered.contains(pid);
            if (answered)
            {
                armed += board.armed();
            }
            for (int i = 0; i < regions.size(); i++)
            {
                final Region r = regions.get(i);
                AccessRate.update(r, answered && i < n && board.accessed(i), ctx.attrs());
                max = Math.max(max, r.nrAccesses());
            }
        }
        return max;
    }

    /**
     * damos_va_apply_scheme(): the action on the parts of the region that are the program's
     * memory: what the agent traces (anonymous) and the program's file mappings (file-backed,
     * for the anon filter), never the agent's own memory, which lies in the same address space
     * (a page parked for a check is not touched: its home is empty and its parking slot is the
     * agent's). willneed, cold and pageout go from outside with process_madvise(2);
     * hugepage and nohugepage, which process_madvise refuses, from inside through the agent.
     * Returns the bytes the kernel took and those the anon filter passed.
     */
    @Override
    public Applied applyScheme(final DamonContext ctx, final Target target, final Region region, final Scheme scheme)
    {
        final int pid = (int)target.id();
        long passed = 0;
        long applied = 0;
        for (final Piece piece : pieces(pid))
        {
            final long s = Math.max(piece.start(), region.start());
            final long e = Math.min(piece.end(), region.end());
            if (s >= e || scheme.opsFilterOut(piece.anonymous()))
            {
                continue;
            }
            passed += e - s;
            applied += apply(pid, scheme.action(), s, e - s);
        }
        return new Applied(applied, passed);
    }

    /** A part of the program's memory an action may touch. */
    private record Piece(long start, long end, boolean anonymous)
    {
    }

    private List<Piece> pieces;
    private long piecesAtNs;

    /** The traced ranges and the file mappings of pid, read at most once per millisecond. */
    private List<Piece> pieces(final int pid)
    {
        final long now = System.nanoTime();
        if (pieces != null && now - piecesAtNs < 1_000_000L)
        {
            return pieces;
        }
        final List<Piece> out = new ArrayList<>();
        for (final AddressRange r : link.traced(pid))
        {
            out.add(new Piece(r.start(), r.end(), true));
        }
        for (final AddressRange r : FileMappings.of(pid))
        {
            out.add(new Piece(r.start(), r.end(), false));
        }
        pieces = out;
        piecesAtNs = now;
        return out;
    }

    private long apply(final int pid, final SchemeAction action, final long start, final long len)
    {
        final int advice = switch (action)
        {
            case WILLNEED -> Libc.MADV_WILLNEED;
            case COLD -> Libc.MADV_COLD;
            case PAGEOUT -> Libc.MADV_PAGEOUT;
            case HUGEPAGE -> Libc.MADV_HUGEPAGE;
            case NOHUGEPAGE -> Libc.MADV_NOHUGEPAGE;
            default -> -1; // stat counts only; the LRU and migration actions have no madvise
        };
        if (advice < 0)
        {
            return 0;
        }
        if (advice == Libc.MADV_HUGEPAGE || advice == Libc.MADV_NOHUGEPAGE)
        {
            final SamplingBoard board = link.board(pid);
            try
            {
                return board != null && link.alive(pid) && board.madvise(start, len, advice, () -> link.alive(pid)) == 0
                    ? len : 0;
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt(); // the monitoring loop stops at its next check
                return 0;
            }
        }
        final int pidfd = link.pidfd(pid);
        if (pidfd < 0)
        {
            return 0;
        }
        try (Memory iov = new Memory(16))
        {
            iov.setLong(0, start);
            iov.setLong(8, len);
            final long r = Libc.INSTANCE.syscall(Libc.SYS_PROCESS_MADVISE, pidfd, iov, 1L, advice, 0);
            return r < 0 ? 0 : r;
        }
    }

    /** Sampling addresses the agent could check so far: 0 means the regions never held traced memory. */
    public long armed()
    {
        return armed;
    }

    @Override
    public boolean targetValid(final DamonContext ctx, final Target target)
    {
        link.poll();
        return !link.gone((int)target.id());
    }
}
