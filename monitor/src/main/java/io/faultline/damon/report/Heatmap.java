package io.faultline.damon.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.faultline.damon.record.Snapshot;

/**
 * A time x address heatmap of access frequency, as {@code damo report heats} computes it: the
 * time and address ranges are cut into a grid of T x A pixels, and a pixel's heat is the
 * average nr_accesses over its area, each region of each aggregation weighted by the time and
 * address span it shares with the pixel.
 */
public final class Heatmap
{
    /** The grid: heat[t][a] for the pixel starting at {@code timeNs[t]}, {@code address[a]}. */
    public record Grid(long pid, long[] timeNs, long[] address, double[][] heat)
    {
    }

    private Heatmap()
    {
    }

    /**
     * The address range damo draws by default for a target: the biggest stretch of address space
     * that its regions cover without a gap, over all aggregations (a process's heap, mmap area and
     * stack are terabytes apart; drawn together they would be three lines).
     */
    public static long[] defaultAddressRange(final List<Snapshot> snapshots, final long pid)
    {
        final List<long[]> spans = new ArrayList<>();
        for (final Snapshot s : snapshots)
        {
            for (final Snapshot.TargetRegions t : s.targets())
            {
                if (t.pid() == pid)
                {
                    for (final Snapshot.RegionRecord r : t.regions())
                    {
                        spans.add(new long[] {r.start(), r.end()});
                    }
                }
            }
        }
        if (spans.isEmpty())
        {
            return null;
        }
        spans.sort(Comparator.comparingLong(a -> a[0]));
        long[] best = null;
        long start = spans.get(0)[0];
        long end = spans.get(0)[1];
        for (final long[] span : spans)
        {
            if (span[0] > end)
            {
                if (best == null || end - start > best[1] - best[0])
                {
                    best = new long[] {start, end};
                }
                start = span[0];
            }
            end = Math.max(end, span[1]);
        }
        if (best == null || end - start > best[1] - best[0])
        {
            best = new long[] {start, end};
        }
        return best;
    }

    /** The heats of {@code pid} over {@code [addressStart, addressEnd)} and the snapshots' time span. */
    public static Grid compute(final List<Snapshot> snapshots, final long pid, final long addressStart,
        final long addressEnd, final int timeResolution, final int addressResolution)
    {
        final long timeStart = snapshots.get(0).startNs();
        final long timeEnd = snapshots.get(snapshots.size() - 1).endNs();
        final double timeUnit = (double)(timeEnd - timeStart) / timeResolution;
        final double addressUnit = (double)(addressEnd - addressStart) / addressResolution;
        final double[][] heat = new double[timeResolution][addressResolution];
        for (final Snapshot s : snapshots)
        {
            for (final Snapshot.TargetRegions t : s.targets())
            {
                if (t.pid() != pid)
                {
                    continue;
                }
                for (final Snapshot.RegionRecord r : t.regions())
                {
                    final long rs = Math.max(r.start(), addressStart);
                    final long re = Math.min(r.end(), addressEnd);
                    if (rs >= re || r.nrAccesses() == 0)
                    {
                        continue;
                    }
                    for (int ti = index(s.startNs() - timeStart, timeUnit, timeResolution);
                        ti < timeResolution && timeStart + ti * timeUnit < s.endNs(); ti++)
                    {
                        final double dt = overlap(timeStart + ti * timeUnit, timeStart + (ti + 1) * timeUnit,
                            s.startNs(), s.endNs());
                        for (int ai = index(rs - addressStart, addressUnit, addressResolution);
                            ai < addressResolution && addressStart + ai * addressUnit < re; ai++)
                        {
                            final double da = overlap(addressStart + ai * addressUnit,
                                addressStart + (ai + 1) * addressUnit, rs, re);
                            heat[ti][ai] += r.nrAccesses() * dt * da / (timeUnit * addressUnit);
                        }
                    }
                }
            }
        }
        final long[] times = new long[timeResolution];
        for (int i = 0; i < timeResolution; i++)
        {
            times[i] = timeStart + (long)(i * timeUnit);
        }
        final long[] addresses = new long[addressResolution];
        for (int i = 0; i < addressResolution; i++)
        {
            addresses[i] = addressStart + (long)(i * addressUnit);
        }
        return new Grid(pid, times, addresses, heat);
    }

    private static int index(final double offset, final double unit, final int resolution)
    {
        return (int)Math.max(0, Math.min(resolution - 1, Math.floor(offset / unit)));
    }

    private static double overlap(final double a0, final double a1, final double b0, final double b1)
    {
        return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
    }
}
