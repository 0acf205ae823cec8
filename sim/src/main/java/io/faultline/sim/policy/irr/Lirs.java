package io.faultline.sim.policy.irr;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.KeyTable;
import io.faultline.sim.policy.SlotList;

import java.util.ArrayList;
import java.util.List;

/**
 * LIRS, Low Inter-reference Recency Set: Jiang and Zhang, "LIRS: an efficient low
 * inter-reference recency set replacement policy to improve buffer cache performance",
 * SIGMETRICS 2002, following the rules of the paper's section 3.3.
 * <p>
 * Resident blocks are LIR (low inter-reference recency) or resident HIR; the cache gives
 * {@code hir} of its capacity (default 0.01, at least one block) to resident HIR blocks and the
 * rest to LIR blocks. The stack S holds LIR blocks, resident HIR blocks and non-resident HIR
 * blocks in recency order, and is pruned so that its bottom is always an LIR block; the queue
 * Q holds the resident HIR blocks and supplies the victim from its front. While the LIR set is
 * not full every missed block becomes LIR. Otherwise:
 * <ul>
 * <li>a hit on an LIR block moves it to the top of S (pruning if it was the bottom);</li>
 * <li>a hit on a resident HIR block moves it to the top of S; if it was in S it becomes LIR,
 *     leaves Q, and the bottom LIR block of S becomes HIR and goes to the end of Q (then S is
 *     pruned); if not, it stays HIR and moves to the end of Q;</li>
 * <li>a miss evicts the front of Q (kept in S as non-resident if it is in S) once the cache is
 *     full, and the new block goes on top of S: LIR with the same bottom demotion if it was
 *     in S as a non-resident block, otherwise resident HIR at the end of Q.</li>
 * </ul>
 * The paper lets S grow without bound; here the number of non-resident blocks in S is at most
 * {@code stack} times the capacity (default 2): beyond that the block that became non-resident
 * longest ago leaves S. {@code stack=0} keeps no non-resident
 * history at all. With a bound that is never reached ({@code stack=1000} on the LIRS project's
 * traces) the miss counts equal those of a plain transcription of the paper's rules at every
 * size tested (LirsTracesPinsTest); the default bound changes some of them, by up to 7% (multi2 at 250 blocks).
 * <p>
 * libCacheSim's LIRS (LIRS.c) gives other counts; reading it shows two departures from the
 * paper: a hit on a resident HIR block that is not in S also demotes the bottom LIR
 * block (hit_RD_HIRinQ calls evictLIR whenever the LIR set is full), so Q grows past L_hirs and
 * the next missed block is taken in as LIR; and it bounds S to twice the cache size counting
 * every block in S, not only the non-resident ones (limitStack). The paper moves such a block
 * to the top of S and the end of Q and leaves the LIR set alone. A model of the paper's rules
 * with these two changes came within 0.1% of libCacheSim's counts at all 24 points
 * (LirsTracesPinsTest's traces and sizes), equal at 12; ours, with an unreached bound, follows
 * the paper.
 */
public final class Lirs implements Policy
{
    public static final double DEFAULT_HIR = 0.01;
    public static final double DEFAULT_STACK = 2.0;

    private static final byte LIR = 0;
    private static final byte HIR = 1;
    private static final byte NON_RESIDENT = 2;

    private final int capacity;
    private final int lirCapacity;
    private final int nonResidentCapacity;
    private final KeyTable index;
    private final long[] keys;
    private final byte[] status;
    private final int[] free;
    private int freeCount;
    /** Recency stack: head = top (most recent). */
    private final SlotList stack;
    /** Resident HIR blocks: tail = front (next victim), head = end. */
    private final SlotList queue;
    /** Non-resident blocks in S, in the order they became non-resident (tail = oldest). */
    private final SlotList nonResident;
    private int lirCount;

    public Lirs(final int capacity, final double hir, final double stack)
    {
        this.capacity = capacity;
        lirCapacity = capacity - Math.min(capacity, Math.max(1, (int)(capacity * hir)));
        nonResidentCapacity = (int)(capacity * stack);
        final int slots = capacity + nonResidentCapacity + 1;
        index = new KeyTable(slots);
        keys = new long[slots];
        status = new byte[slots];
        free = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            free[i] = slots - 1 - i;
        }
        freeCount = slots;
        this.stack = new SlotList(slots);
        queue = new SlotList(slots);
        nonResident = new SlotList(slots);
    }

    @Override
    public boolean record(final long key)
    {
        int slot = index.get(key);
        if (slot != KeyTable.MISSING && status[slot] != NON_RESIDENT)
        {
            if (status[slot] == LIR)
            {
                final boolean wasBottom = stack.tail() == slot;
                stack.pushHead(slot);
                if (wasBottom)
                {
                    prune();
                }
            }
            else if (stack.contains(slot))
            {
                stack.pushHead(slot);
                queue.remove(slot);
                status[slot] = LIR;
                lirCount++;
                demoteBottom();
            }
            else
            {
                stack.pushHead(slot);
                queue.pushHead(slot);
            }
            return true;
        }

        if (slot != KeyTable.MISSING)
        {
            // Off the non-resident list first, so that trimming it cannot drop this block.
            nonResident.remove(slot);
        }
        if (lirCount < lirCapacity)
        {
            if (slot == KeyTable.MISSING)
            {
                slot = allocate(key);
            }
            status[slot] = LIR;
            lirCount++;
            stack.pushHead(slot);
            return false;
        }
        if (lirCount + queue.size() == capacity)
        {
            evict();
        }
        if (slot == KeyTable.MISSING)
        {
            slot = allocate(key);
            status[slot] = HIR;
            stack.pushHead(slot);
            queue.pushHead(slot);
        }
        else
        {
            status[slot] = LIR;
            lirCount++;
            stack.pushHead(slot);
            demoteBottom();
        }
        return false;
    }

    private void evict()
    {
        final int victim = queue.tail();
        queue.remove(victim);
        if (stack.contains(victim))
        {
            status[victim] = NON_RESIDENT;
            nonResident.pushHead(victim);
            while (nonResident.size() > nonResidentCapacity)
            {
                final int oldest = nonResident.tail();
                nonResident.remove(oldest);
                stack.remove(oldest);
                release(oldest);
            }
        }
        else
        {
            release(victim);
        }
    }

    /** The bottom LIR block of S becomes resident HIR at the end of Q; then S is pruned. */
    private void demoteBottom()
    {
        // S's bottom is already LIR unless the LIR set was empty (a capacity too small for any
        // LIR block); pruning first makes the just-promoted block the bottom in that case.
        prune();
        final int bottom = stack.tail();
        status[bottom] = HIR;
        lirCount--;
        stack.remove(bottom);
        queue.pushHead(bottom);
        prune();
    }

    /** Removes HIR blocks from the bottom of S until an LIR block is there. */
    private void prune()
    {
        int bottom = stack.tail();
        while (bottom != -1 && status[bottom] != LIR)
        {
            stack.remove(bottom);
            if (status[bottom] == NON_RESIDENT)
            {
                nonResident.remove(bottom);
                release(bottom);
            }
            bottom = stack.tail();
        }
    }

    private int allocate(final long key)
    {
        final int slot = free[--freeCount];
        keys[slot] = key;
        index.put(key, slot);
        return slot;
    }

    private void release(final int slot)
    {
        index.remove(keys[slot]);
        free[freeCount++] = slot;
    }

    /** "LIR", "HIR" (resident), "non-resident" (in S only) or null, for tests. */
    public String state(final long key)
    {
        final int slot = index.get(key);
        if (slot == KeyTable.MISSING)
        {
            return null;
        }
        return status[slot] == LIR ? "LIR" : status[slot] == HIR ? "HIR" : "non-resident";
    }

    /** S from top to bottom, for tests. */
    public List<Long> stack()
    {
        final List<Long> result = new ArrayList<>();
        for (int s = stack.head(); s != -1; s = stack.older(s))
        {
            result.add(keys[s]);
        }
        return result;
    }

    /** Q from front (next victim) to end, for tests. */
    public List<Long> queue()
    {
        final List<Long> result = new ArrayList<>();
        for (int s = queue.tail(); s != -1; s = queue.newer(s))
        {
            result.add(keys[s]);
        }
        return result;
    }

    @Override
    public void finished()
    {
        stack.check("lirs", "S");
        queue.check("lirs", "Q");
        nonResident.check("lirs", "non-resident");
        final int used = keys.length - freeCount;
        int lir = 0;
        int inStackOnly = 0;
        for (int s = stack.head(); s != -1; s = stack.older(s))
        {
            if (status[s] == LIR)
            {
                lir++;
            }
            else if (status[s] == NON_RESIDENT)
            {
                inStackOnly++;
            }
        }
        final int resident = lirCount + queue.size();
        final int bottom = stack.tail();
        if (lir != lirCount || lirCount > lirCapacity || resident > capacity || inStackOnly != nonResident.size() ||
            nonResident.size() > nonResidentCapacity || index.size() != used || used != resident + nonResident.size() ||
            (lirCount > 0 && status[bottom] != LIR))
        {
            throw new IllegalStateException("lirs: lir=" + lirCount + "/" + lirCapacity + " (in S " + lir + ") hir=" +
                queue.size() + " non-resident=" + nonResident.size() + " (in S " + inStackOnly + ") used=" + used +
                " indexed=" + index.size() + " capacity=" + capacity);
        }
    }
}
