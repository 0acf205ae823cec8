package io.faultline.tools;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.faultline.sim.PolicySpec;
import io.faultline.sim.report.Progress;
import io.faultline.tools.live.LiveReplay;
import io.faultline.tracer.RecordingCounts;

/**
 * What {@code record --live} shows on a terminal, one line redrawn by {@link Progress#beside}:
 * the recording (references, rate, time), how far the replay is behind, the working set and the
 * distinct pages, the LRU miss ratio at a few sizes above the EVMS's (at and below it a trace
 * cannot tell hits from misses), and each policy at each size. Cut to the terminal's width, so that a
 * redraw never wraps.
 */
final class LiveView
{
    /** Sizes shown: doublings of the EVMS's. */
    private static final int SHOWN = 5;

    private final List<PolicySpec> specs;
    private final int[] capacities;
    private final int pageSize;
    private final LiveReplay replay;
    private final RecordingCounts counts;
    private final int width = width();

    LiveView(final List<PolicySpec> specs, final int[] capacities, final int pageSize, final LiveReplay replay,
        final RecordingCounts counts)
    {
        this.specs = specs;
        this.capacities = capacities;
        this.pageSize = pageSize;
        this.replay = replay;
        this.counts = counts;
    }

    /**
     * The LRU sizes the line shows, ascending: twice the EVMS's and its doublings (at the EVMS's
     * own size, and below, a trace cannot tell hits from misses).
     */
    static int[] shownSizes(final int evmsPages)
    {
        final int[] sizes = new int[SHOWN];
        for (int i = 0; i < SHOWN; i++)
        {
            sizes[i] = Math.max(1, evmsPages) << (i + 1);
        }
        return sizes;
    }

    /** {@code Live: 1,234 refs, 45.6 k/s, 27 s, behind 0 | W(1s) 812 pages, 3,456 seen | LRU 2M 31.2% 4M ... | arc 4M 10.3%}. */
    String line(final long elapsedNs)
    {
        final StringBuilder line = new StringBuilder();
        final long references = counts.references();
        line.append(String.format(Locale.ROOT, "Live: %,d refs, %s, %s", references,
            Progress.rate(elapsedNs > 0 ? references * 1e9 / elapsedNs : 0),
            Progress.duration(TimeUnit.NANOSECONDS.toSeconds(elapsedNs))));
        final LiveReplay.Snapshot snapshot = replay.snapshot();
        if (snapshot != null)
        {
            line.append(String.format(Locale.ROOT, ", behind %,d | W(1s) %,d pages, %,d seen | LRU", snapshot.lag(),
                snapshot.workingSet(), snapshot.distinct()));
            for (int i = 0; i < snapshot.sizes().length; i++)
            {
                line.append(' ').append(bytes(snapshot.sizes()[i])).append(' ')
                    .append(percent(snapshot.lruMisses()[i], snapshot.replayed()));
            }
            int pair = 0;
            for (final PolicySpec spec : specs)
            {
                line.append(" | ").append(spec.label());
                for (final int capacity : capacities)
                {
                    line.append(' ').append(bytes(capacity)).append(' ')
                        .append(percent(snapshot.sweepMisses()[pair++], snapshot.replayed()));
                }
            }
        }
        return line.length() <= width ? line.toString() : line.substring(0, width - 1);
    }

    /** The one line after the run: what was replayed, how far behind it fell, what went to disk. */
    static String summary(final LiveReplay.Result result, final int pairs, final long catchUpNs)
    {
        return String.format(Locale.ROOT, "faultline record: --live replayed %,d references (%,d distinct pages) into "
                + "the exact LRU curve%s in %.2f s of CPU (%s); at most %,d behind the recording (sampled every %d ms), "
                + "caught up %.2f s after the recording ended%s",
            result.references(), result.curve().distinct(), pairs == 0 ? "" : String.format(Locale.ROOT,
                " and %,d policy run%s", pairs, pairs == 1 ? "" : "s"), result.cpuNs() / 1e9,
            Progress.rate(result.cpuNs() > 0 ? result.references() * 1e9 / result.cpuNs() : 0), result.maxLag(),
            TimeUnit.NANOSECONDS.toMillis(LiveReplay.SNAPSHOT_NS), catchUpNs / 1e9,
            result.spilled() == 0 ? "" : String.format(Locale.ROOT, ", %,d of them by way of a spill file",
                result.spilled()));
    }

    private String bytes(final int pages)
    {
        return Size.formatBytes((long)pages * pageSize);
    }

    private static String percent(final long misses, final long requests)
    {
        return requests == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", misses * 100.0 / requests);
    }

    /** The terminal's columns as the shell exports them, else 100: a line never wider. */
    private static int width()
    {
        try
        {
            final String columns = System.getenv("COLUMNS");
            return columns == null ? 100 : Math.max(40, Integer.parseInt(columns.trim()));
        }
        catch (final NumberFormatException ex)
        {
            return 100;
        }
    }
}
