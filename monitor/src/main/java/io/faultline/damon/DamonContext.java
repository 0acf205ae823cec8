package io.faultline.damon;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.faultline.damon.schemes.Damos;
import io.faultline.damon.schemes.Scheme;

/**
 * A monitoring context, {@code struct damon_ctx} of include/linux/damon.h, and its monitoring
 * loop, kdamond_fn() of mm/damon/core.c (Documentation/mm/damon/design.rst, "Execution
 * Model"; the API reference, Documentation/mm/damon/api.rst). One context monitors its targets
 * with one operations set; a user learns the results through {@link Callbacks}.
 *
 * <p>Single writer: {@link #run()} is the only code that changes the targets and regions
 * while monitoring runs; callbacks run on its thread.
 */
public final class DamonContext
{
    private Attributes attrs;
    private final List<Target> targets = new ArrayList<>();
    private final List<Scheme> schemes = new ArrayList<>();
    private final Operations ops;
    private final Callbacks callbacks;
    private final DamonRandom random;
    private final MonitorClock clock;
    private final long minRegionSize;

    private long passedSampleIntervals;
    private long nextAggregationSis;
    private long nextOpsUpdateSis;
    /** damon_attrs.aggr_samples: samples per aggregation, kept while tuning changes the intervals. */
    private long aggrSamples;
    private long nextIntervalsTuneSis;
    /** kdamond_split_regions()'s static last_nr_regions, kept per context. */
    int lastNrRegions;

    /**
     * @param minRegionSize DAMON_MIN_REGION: the smallest region and the alignment of region
     *                      bounds (the page size; the kernel's kunit tests use 1)
     */
    public DamonContext(final Attributes attrs, final Operations ops, final Callbacks callbacks,
        final DamonRandom random, final MonitorClock clock, final long minRegionSize)
    {
        this.attrs = attrs.validated();
        this.aggrSamples = attrs.samplesPerAggregation();
        this.ops = ops;
        this.callbacks = callbacks;
        this.random = random;
        this.clock = clock;
        if (minRegionSize <= 0)
        {
            throw new IllegalArgumentException("minimum region size must be positive: " + minRegionSize);
        }
        this.minRegionSize = minRegionSize;
    }

    public Attributes attrs()
    {
        return attrs;
    }

    public List<Target> targets()
    {
        return Collections.unmodifiableList(targets);
    }

    /** damon_add_target(). */
    public void addTarget(final Target target)
    {
        targets.add(target);
    }

    /** The context's DAMOS schemes, in the order they are applied. */
    public List<Scheme> schemes()
    {
        return Collections.unmodifiableList(schemes);
    }

    /**
     * damon_add_scheme() before monitoring starts.
     *
     * @throws IllegalArgumentException if the scheme is not valid ({@link Scheme#problem()})
     */
    public void addScheme(final Scheme scheme)
    {
        final String problem = scheme.problem();
        if (problem != null)
        {
            throw new IllegalArgumentException(problem);
        }
        schemes.add(scheme);
    }

    public Operations ops()
    {
        return ops;
    }

    public DamonRandom random()
    {
        return random;
    }

    public MonitorClock clock()
    {
        return clock;
    }

    public long minRegionSize()
    {
        return minRegionSize;
    }

    public long passedSampleIntervals()
    {
        return passedSampleIntervals;
    }

    /** Samples per aggregation interval: the kernel's attrs.aggr_samples, which intervals tuning keeps. */
    public long aggrSamples()
    {
        return aggrSamples;
    }

    /**
     * damon_set_attrs() from outside the core: validates and applies new attributes, rescaling
     * every region's nr_accesses and age to them (damon_update_monitoring_results()); the
     * samples per aggregation become the new intervals' ratio.
     *
     * @throws IllegalArgumentException if the attributes are not valid
     */
    public void setAttrs(final Attributes newAttrs)
    {
        newAttrs.validated();
        aggrSamples = newAttrs.samplesPerAggregation();
        applyAttrs(newAttrs);
    }

    /** damon_set_attrs() as kdamond_tune_intervals() calls it: the samples per aggregation stay. */
    void setTunedIntervals(final long sampleUs, final long aggrUs)
    {
        applyAttrs(attrs.withIntervals(sampleUs, aggrUs).validated());
    }

    private void applyAttrs(final Attributes newAttrs)
    {
        final boolean aggregating = passedSampleIntervals < nextAggregationSis;
        nextAggregationSis = passedSampleIntervals + newAttrs.samplesPerAggregation();
        nextOpsUpdateSis = passedSampleIntervals + newAttrs.samplesPerOpsUpdate();
        for (final Target t : targets)
        {
            for (final Region r : t.regions)
            {
                AccessRate.rescale(r, attrs, newAttrs, aggregating);
            }
        }
        attrs = newAttrs;
        Damos.setNextApplySis(this);
    }

    /**
     * kdamond_need_stop(): monitoring stops when no target is valid any more (or, in the
     * kernel, when asked to stop: here, a callback returning true or an interrupt).
     */
    private boolean needStop()
    {
        if (Thread.currentThread().isInterrupted())
        {
            return true;
        }
        for (final Target t : targets)
        {
            if (ops.targetValid(this, t))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * kdamond_wait_activation(): while no scheme's watermarks let it run, monitoring pauses,
     * checking again after the shortest wait any scheme asks. Returns true if monitoring must
     * stop meanwhile.
     */
    private boolean waitActivation() throws InterruptedException
    {
        while (!needStop())
        {
            final long waitUs = Damos.activationWaitUs(this);
            if (waitUs == 0)
            {
                return false;
            }
            clock.sleepUs(waitUs);
        }
        return true;
    }

    /**
     * Runs the monitoring loop until every target is gone or a callback asks to stop: the
     * order of kdamond_fn(). Each iteration waits while the schemes' watermarks deactivate them
     * all, prepares the access checks, lets one sampling interval pass, checks accesses; at the
     * end of an aggregation interval merges regions (threshold: a tenth of the largest
     * nr_accesses) and calls {@link Callbacks#afterAggregation}; then applies the schemes that are
     * due ({@link Damos#applySchemes}); at the end of an aggregation tunes the intervals if the
     * goal's aggregations have passed ({@link IntervalsTuning}), calls {@link Callbacks#aggregated},
     * resets the counters and splits regions; every operations-update interval, or as soon as
     * the operations set reports memory no region covers ({@link Operations#uncoveredMemory}),
     * updates the address spaces and the region size limit.
     */
    public void run() throws Exception
    {
        passedSampleIntervals = 0;
        nextAggregationSis = attrs.samplesPerAggregation();
        nextOpsUpdateSis = attrs.samplesPerOpsUpdate();
        nextIntervalsTuneSis = nextAggregationSis * attrs.intervalsGoal().aggrs();
        Damos.setNextApplySis(this);
        ops.init(this);
        try
        {
            if (callbacks.beforeStart(this))
            {
                return;
            }
            long szLimit = AdaptiveRegions.regionSizeLimit(this);
            int maxNrAccesses = 0;
            while (!needStop())
            {
                final long nextAggregation = nextAggregationSis;
                final long nextOpsUpdate = nextOpsUpdateSis;
                if (waitActivation())
                {
                    break;
                }
                ops.prepareAccessChecks(this);
                if (callbacks.afterSampling(this))
                {
                    break;
                }
                ops.awaitSampleInterval(this, clock);
                passedSampleIntervals++;
                maxNrAccesses = ops.checkAccesses(this);

                if (passedSampleIntervals >= nextAggregation)
                {
                    AdaptiveRegions.mergeRegions(this, maxNrAccesses / 10, szLimit);
                    if (callbacks.afterAggregation(this))
                    {
                        break;
                    }
                }
                if (!schemes.isEmpty())
                {
                    Damos.applySchemes(this);
                }
                if (passedSampleIntervals >= nextAggregation)
                {
                    if (attrs.intervalsGoal().enabled() && passedSampleIntervals >= nextIntervalsTuneSis)
                    {
                        // damon_set_attrs() must see the aggregation as complete, not under way
                        nextAggregationSis = nextAggregation;
                        nextIntervalsTuneSis += aggrSamples * attrs.intervalsGoal().aggrs();
                        IntervalsTuning.tune(this);
                    }
                    nextAggregationSis = nextAggregation + attrs.samplesPerAggregation();
                    callbacks.aggregated(this);
                    AdaptiveRegions.resetAggregated(this);
                    AdaptiveRegions.splitRegions(this);
                    ops.resetAggregated(this);
                }
                final boolean opsUpdateDue = passedSampleIntervals >= nextOpsUpdate;
                if (opsUpdateDue || ops.uncoveredMemory(this))
                {
                    if (opsUpdateDue)
                    {
                        nextOpsUpdateSis = nextOpsUpdate + attrs.samplesPerOpsUpdate();
                    }
                    ops.update(this);
                    szLimit = AdaptiveRegions.regionSizeLimit(this);
                }
            }
        }
        finally
        {
            for (final Target t : targets)
            {
                t.clearRegions();
            }
            try
            {
                callbacks.beforeTerminate(this);
            }
            finally
            {
                ops.cleanup(this);
            }
        }
    }
}
