package io.faultline.sim.policy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * The rules of LIRS written out as plainly as the paper states them (Jiang and Zhang, SIGMETRICS
 * 2002, section 3.3), with library collections and no bound on the stack S: the independent
 * model {@code Lirs} is checked against. S is a LinkedHashMap whose first entry is the bottom;
 * Q a LinkedHashSet whose first element is the front. L_hirs is 1% of the cache, at least one
 * block, as in the paper's experiments.
 */
public final class LirsPaperModel
{
    private enum State { LIR, RESIDENT_HIR, NON_RESIDENT_HIR }

    private final int capacity;
    private final int lirLimit;
    private final LinkedHashMap<Long, Boolean> stack = new LinkedHashMap<>();
    private final LinkedHashSet<Long> queue = new LinkedHashSet<>();
    private final Map<Long, State> state = new HashMap<>();
    private int lirCount;

    LirsPaperModel(final int capacity)
    {
        this.capacity = capacity;
        lirLimit = capacity - Math.max(1, (int)(capacity * 0.01));
    }

    /** Counts the misses of {@code trace}. */
    public static long misses(final int capacity, final long[] trace)
    {
        final LirsPaperModel model = new LirsPaperModel(capacity);
        long misses = 0;
        for (final long key : trace)
        {
            misses += model.access(key) ? 0 : 1;
        }
        return misses;
    }

    /** @return true on a hit */
    boolean access(final long x)
    {
        final State s = state.get(x);
        if (s == State.LIR)
        {
            // Upon accessing an LIR block X: move it to the top of S; if it was at the bottom, prune.
            toTop(x);
            prune();
            return true;
        }
        if (s == State.RESIDENT_HIR)
        {
            if (stack.containsKey(x))
            {
                // X in S: it becomes LIR; the bottom LIR of S becomes HIR and goes to the end of Q.
                toTop(x);
                queue.remove(x);
                state.put(x, State.LIR);
                lirCount++;
                demoteBottom();
            }
            else
            {
                // X not in S: it stays HIR, goes on top of S and to the end of Q.
                toTop(x);
                queue.remove(x);
                queue.add(x);
            }
            return true;
        }
        // A miss. Until the LIR set is full, every missed block becomes LIR.
        if (lirCount < lirLimit)
        {
            state.put(x, State.LIR);
            lirCount++;
            toTop(x);
            return false;
        }
        if (lirCount + queue.size() == capacity)
        {
            // Free the resident HIR block at the front of Q; if it is in S it stays there, non-resident.
            final long victim = queue.iterator().next();
            queue.remove(victim);
            if (stack.containsKey(victim))
            {
                state.put(victim, State.NON_RESIDENT_HIR);
            }
            else
            {
                state.remove(victim);
            }
        }
        if (s == State.NON_RESIDENT_HIR)
        {
            // X in S: it becomes LIR, with the same demotion of the bottom LIR block.
            toTop(x);
            state.put(x, State.LIR);
            lirCount++;
            demoteBottom();
        }
        else
        {
            toTop(x);
            state.put(x, State.RESIDENT_HIR);
            queue.add(x);
        }
        return false;
    }

    private void toTop(final long x)
    {
        stack.remove(x);
        stack.put(x, Boolean.TRUE);
    }

    private void demoteBottom()
    {
        final long bottom = stack.keySet().iterator().next();
        stack.remove(bottom);
        state.put(bottom, State.RESIDENT_HIR);
        lirCount--;
        queue.add(bottom);
        prune();
    }

    /** Removes HIR blocks from the bottom of S until an LIR block is there; non-resident ones are forgotten. */
    private void prune()
    {
        while (!stack.isEmpty())
        {
            final long bottom = stack.keySet().iterator().next();
            final State s = state.get(bottom);
            if (s == State.LIR)
            {
                return;
            }
            stack.remove(bottom);
            if (s == State.NON_RESIDENT_HIR)
            {
                state.remove(bottom);
            }
        }
    }
}
