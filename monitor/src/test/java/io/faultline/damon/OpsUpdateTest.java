package io.faultline.damon;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * When the core calls {@link Operations#update}: on the kernel's operations-update interval
 * (kdamond_fn in mm/damon/core.c), and besides that right after a sample in which the operations
 * set reported memory no region covers ({@link Operations#uncoveredMemory}), without moving the
 * interval's schedule.
 */
class OpsUpdateTest
{
    /** An operations set that records at which sample each update came. */
    private static final class Recording implements Operations
    {
        final List<Integer> updates = new ArrayList<>();
        final List<Integer> uncoveredAt;
        int samples;

        Recording(final List<Integer> uncoveredAt)
        {
            this.uncoveredAt = uncoveredAt;
        }

        @Override
        public String id()
        {
            return "test";
        }

        @Override
        public void init(final DamonContext ctx)
        {
            ctx.targets().get(0).addRegion(new Region(0, 1 << 20));
        }

        @Override
        public void update(final DamonContext ctx)
        {
            updates.add(samples);
        }

        @Override
        public int checkAccesses(final DamonContext ctx)
        {
            samples++;
            return 0;
        }

        @Override
        public boolean uncoveredMemory(final DamonContext ctx)
        {
            return uncoveredAt.contains(samples);
        }
    }

    private static List<Integer> updates(final List<Integer> uncoveredAt)
    {
        // sampling 5 ms, aggregation 50 ms, operations update every 100 ms: every 20th sample
        final Attributes attrs = new Attributes(5_000, 50_000, 100_000, 10, 1000);
        final Recording ops = new Recording(uncoveredAt);
        final Callbacks stopAfter50 = new Callbacks()
        {
            @Override
            public boolean afterSampling(final DamonContext ctx)
            {
                return ops.samples >= 50;
            }
        };
        final DamonContext ctx = new DamonContext(attrs, ops, stopAfter50, DamonRandom.seeded(1), MonitorClock.virtual(), 4096);
        ctx.addTarget(new Target(0));
        try
        {
            ctx.run();
        }
        catch (final Exception e)
        {
            throw new AssertionError(e);
        }
        return ops.updates;
    }

    @Test
    void withoutUncoveredMemoryOnlyTheIntervalUpdates()
    {
        assertEquals(List.of(20, 40), updates(List.of()));
    }

    @Test
    void uncoveredMemoryUpdatesAtOnceAndTheIntervalKeepsItsSchedule()
    {
        assertEquals(List.of(3, 20, 27, 40), updates(List.of(3, 27)));
    }
}
