package io.faultline.damon.report;

import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.ops.TraceIndex;
import io.faultline.damon.record.Snapshot;
import org.agrona.collections.Long2LongHashMap;

/**
 * What DAMON estimates, computed exactly from every record of a trace. The exact access
 * frequency of a page in an aggregation interval is, in DAMON's unit, the number of the
 * interval's sampling intervals in which the trace references the page (0 to aggregation /
 * sampling); the exact working set is the set of pages with a frequency of at least 1.
 * Aggregation k covers {@code [k * A, (k + 1) * A)} with A = (aggregation / sampling) samples,
 * on the trace's clock: the windows the {@code trace} operations set aggregates over. Under
 * intervals auto-tuning ({@link #tuned}) each aggregation has its own sampling interval, its
 * length over the samples per aggregation, which tuning keeps.
 */
public final class ExactAccesses
{
    private final TraceIndex trace;
    private final long sampleNs;
    private final long samplesPerAggregation;
    /** Each aggregation's sampling interval is its own length / samplesPerAggregation. */
    private final boolean tuned;

    public ExactAccesses(final TraceIndex trace, final long sampleUs, final long aggrUs)
    {
        if (sampleUs <= 0 || aggrUs < sampleUs)
        {
            throw new IllegalArgumentException("need 0 < sampling interval <= aggregation interval: sample "
                + sampleUs + " us, aggregation " + aggrUs + " us");
        }
        this.trace = trace;
        this.sampleNs = sampleUs * 1000;
        this.samplesPerAggregation = aggrUs / sampleUs;
        this.tuned = false;
    }

    private ExactAccesses(final TraceIndex trace, final long samplesPerAggregation)
    {
        this.trace = trace;
        this.sampleNs = 0;
        this.samplesPerAggregation = samplesPerAggregation;
        this.tuned = true;
    }

    /**
     * The truth for a monitor whose intervals were auto-tuned: aggregations of
     * {@code samplesPerAggregation} sampling intervals each, of any length.
     */
    public static ExactAccesses tuned(final TraceIndex trace, final long samplesPerAggregation)
    {
        if (samplesPerAggregation < 1)
        {
            throw new IllegalArgumentException("an aggregation holds at least one sample: " + samplesPerAggregation);
        }
        return new ExactAccesses(trace, samplesPerAggregation);
    }

    public TraceIndex trace()
    {
        return trace;
    }

    public long aggregationNs()
    {
        if (tuned)
        {
            throw new IllegalStateException("tuned intervals: each aggregation has its own length");
        }
        return sampleNs * samplesPerAggregation;
    }

    public long maxNrAccesses()
    {
        return samplesPerAggregation;
    }

    /** Aggregations the monitor completes on this trace: those whose last sampling interval starts before the end. */
    public long aggregations()
    {
        // Aggregation k is complete iff its last sampling interval, prepared at (k + 1) * A - sample, starts before the end.
        final long a = aggregationNs();
        return Math.max(0, (trace.endNs() + sampleNs + a - 1) / a - 1);
    }

    /** The exact frequency of {@code page} of {@code pid} in the window {@code [fromNs, fromNs + aggregation)}. */
    public int frequency(final int pid, final long page, final long fromNs)
    {
        return trace.sampledReferences(pid, page, fromNs, aggregationNs() / samplesPerAggregation,
            samplesPerAggregation);
    }

    /** The exact frequency of {@code page} of {@code pid} in the aggregation of {@code snapshot}. */
    public int frequency(final int pid, final long page, final Snapshot snapshot)
    {
        final long sample = tuned ? (snapshot.endNs() - snapshot.startNs()) / samplesPerAggregation : sampleNs;
        return trace.sampledReferences(pid, page, snapshot.startNs(), sample, samplesPerAggregation);
    }

    /**
     * Every aggregation as a snapshot of exact regions: per process, maximal runs of consecutive
     * pages with the same non-zero frequency; a run's age is the fewest aggregations any of its
     * pages kept its frequency (DAMON's age rule with a threshold of 0). Pages with no
     * reference in an aggregation are in no region.
     */
    public List<Snapshot> snapshots()
    {
        final long count = aggregations();
        final int pageSize = trace.pageSize();
        final List<Snapshot> snapshots = new ArrayList<>();
        final List<Long2LongHashMap> lastFrequency = new ArrayList<>();
        final List<Long2LongHashMap> ages = new ArrayList<>();
        final List<Integer> pids = trace.pids();
        for (int t = 0; t < pids.size(); t++)
        {
            // Agrona maps need a missing value that is never stored; -1 reads as 0, the counters' start.
            lastFrequency.add(new Long2LongHashMap(-1));
            ages.add(new Long2LongHashMap(-1));
        }
        for (long k = 0; k < count; k++)
        {
            final long from = k * aggregationNs();
            final List<Snapshot.TargetRegions> targets = new ArrayList<>();
            for (int t = 0; t < pids.size(); t++)
            {
                final int pid = pids.get(t);
                final List<Snapshot.RegionRecord> regions = new ArrayList<>();
                long runStart = -1;
                long runEnd = -1;
                int runFrequency = 0;
                long runAge = 0;
                for (final long page : trace.pages(pid))
                {
                    final int f = frequency(pid, page, from);
                    final long last = Math.max(0, lastFrequency.get(t).get(page));
                    final long age = f == last ? Math.max(0, ages.get(t).get(page)) + 1 : 0;
                    lastFrequency.get(t).put(page, f);
                    ages.get(t).put(page, age);
                    if (f == 0)
                    {
                        continue;
                    }
                    if (runStart >= 0 && page == runEnd && f == runFrequency)
                    {
                        runEnd = page + 1;
                        runAge = Math.min(runAge, age);
                        continue;
                    }
                    if (runStart >= 0)
                    {
                        regions.add(new Snapshot.RegionRecord(runStart * pageSize, runEnd * pageSize, runFrequency,
                            (int)runAge));
                    }
                    runStart = page;
                    runEnd = page + 1;
                    runFrequency = f;
                    runAge = age;
                }
                if (runStart >= 0)
                {
                    regions.add(new Snapshot.RegionRecord(runStart * pageSize, runEnd * pageSize, runFrequency,
                        (int)runAge));
                }
                targets.add(new Snapshot.TargetRegions(pid, regions));
            }
            snapshots.add(new Snapshot(k, from, from + aggregationNs(), targets));
        }
        return snapshots;
    }
}
