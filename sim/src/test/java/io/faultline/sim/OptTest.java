package io.faultline.sim;

import io.faultline.sim.policy.opt.Opt;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class OptTest
{
    @Test
    void beladyAnomalySequence()
    {
        // Worked by hand with MIN's rule (evict the page used farthest ahead):
        // 3 frames: 1 2 3 miss; 4 evicts 3 (next uses 1@5 2@6 3@10); 1 2 hit; 5 evicts 4 (1@8 2@9 4@11);
        // 1 2 hit; 3 evicts 1 or 2 (neither used again); 4 evicts the other; 5 hits: 7 misses.
        final long[] trace = {1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5};
        assertEquals("MMMMHHMHHMMH", Patterns.of(new Opt(3, trace), trace));
        // 4 frames: 5 evicts 4 (3@10, 4@11, 1@8, 2@9); 3 hits; 4 evicts 1 or 2 ... 6 misses.
        assertEquals("MMMMHHMHHHMH", Patterns.of(new Opt(4, trace), trace));
    }

    @Test
    void matchesExhaustiveSearchOnShortRandomTraces()
    {
        final SplittableRandom random = new SplittableRandom(1966);
        for (int round = 0; round < 300; round++)
        {
            final long[] trace = new long[12];
            for (int i = 0; i < trace.length; i++)
            {
                trace[i] = random.nextInt(5);
            }
            for (int capacity = 1; capacity <= 4; capacity++)
            {
                final int[][] memo = new int[trace.length + 1][1 << 5];
                for (final int[] row : memo)
                {
                    Arrays.fill(row, -1);
                }
                final int best = bruteForce(trace, capacity, 0, 0, memo);
                assertEquals(best, Simulator.run(PolicySpec.parse("opt"), capacity, trace).misses(),
                    Arrays.toString(trace) + " capacity " + capacity);
            }
        }
    }

    /** The fewest misses from position {@code i} with {@code resident} (a bit set of keys) in memory, trying every victim. */
    private static int bruteForce(final long[] trace, final int capacity, final int i, final int resident, final int[][] memo)
    {
        if (i == trace.length)
        {
            return 0;
        }
        if (memo[i][resident] >= 0)
        {
            return memo[i][resident];
        }
        final int page = 1 << trace[i];
        int best;
        if ((resident & page) != 0)
        {
            best = bruteForce(trace, capacity, i + 1, resident, memo);
        }
        else if (Integer.bitCount(resident) < capacity)
        {
            best = 1 + bruteForce(trace, capacity, i + 1, resident | page, memo);
        }
        else
        {
            best = Integer.MAX_VALUE;
            for (int victim = 0; victim < 5; victim++)
            {
                if ((resident & (1 << victim)) != 0)
                {
                    best = Math.min(best, 1 + bruteForce(trace, capacity, i + 1, (resident & ~(1 << victim)) | page, memo));
                }
            }
        }
        memo[i][resident] = best;
        return best;
    }
}
