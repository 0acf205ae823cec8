package io.faultline.sim.mrc;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class StackDistancesTest
{
    private static final long INF = StackDistances.INFINITE;

    @Test
    void distanceIsOnePlusTheDistinctKeysSinceTheLastReference()
    {
        final StackDistances distances = new StackDistances();
        final long[] got = new long[9];
        final long[] trace = {'a', 'b', 'c', 'a', 'a', 'c', 'b', 'd', 'a'};
        for (int i = 0; i < trace.length; i++)
        {
            got[i] = distances.record(trace[i]);
        }
        assertArrayEquals(new long[] {INF, INF, INF, 3, 1, 2, 3, INF, 4}, got);
        assertEquals(4, distances.distinct());
    }

    @Test
    void agreesWithAListStackThroughManyCompactionsAndGrowth()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final StackDistances distances = new StackDistances();
        final List<Long> stack = new ArrayList<>();
        // Key space widens over time so the slot array must both compact and grow.
        for (int i = 0; i < 60_000; i++)
        {
            final int space = i < 20_000 ? 500 : i < 40_000 ? 6_000 : 3_000;
            final long key = random.nextInt(space) * 0x10001L - 5;
            final int index = stack.indexOf(key);
            final long expected = index < 0 ? INF : index + 1;
            if (index >= 0)
            {
                stack.remove(index);
            }
            stack.add(0, key);
            assertEquals(expected, distances.record(key), "reference " + i + " key " + key);
        }
        assertEquals(stack.size(), distances.distinct());
    }
}
