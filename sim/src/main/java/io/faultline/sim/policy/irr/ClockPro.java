package io.faultline.sim.policy.irr;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.KeyTable;

/**
 * CLOCK-Pro: Jiang, Chen and Zhang, "CLOCK-Pro: an effective improvement of the CLOCK
 * replacement", USENIX ATC 2005, following the hand rules of the paper's section 4; where the
 * paper leaves a choice (warm-up, pages swept by HAND_hot physically moved to the list head, a
 * referenced page in test counting as a re-access when its test ends) it does what Caffeine's
 * ClockProPolicy does.
 * <p>
 * One circular list holds hot pages, resident cold pages and non-resident cold pages (at most
 * as many as the capacity m), in the order they were placed at the list head. A hit only sets
 * the page's reference bit. A cold page is in its <em>test period</em> from when it is placed at
 * the head until a hand terminates it. Three hands sweep from the oldest end toward the head,
 * wrapping around:
 * <ul>
 * <li>HAND_cold finds a victim among resident cold pages: bit clear, the page is evicted (kept
 *     as non-resident if in test, forgotten otherwise); bit set and in test, the page turns
 *     hot and moves to the head (then HAND_hot runs while there are more hot pages than
 *     m - mc); bit set and not in test, the bit is cleared, a test period starts and the page
 *     moves to the head.</li>
 * <li>HAND_hot clears the bits of hot pages (moving them to the head) until it demotes one
 *     with a clear bit to a resident cold page (not in test) at the head; it terminates the
 *     test periods of cold pages it passes and forgets non-resident ones.</li>
 * <li>HAND_test runs while there are more than m non-resident pages: it terminates the next
 *     test period it finds and forgets the page if non-resident.</li>
 * </ul>
 * A miss on a page not in the list makes it a cold page at the head, in test. A miss on a
 * non-resident page (in test, by construction) makes it hot at the head, after which HAND_hot
 * runs as above. The resident cold target mc adapts: +1 when a page in test is re-accessed (a
 * non-resident fault, or a set bit found on a page in test), -1 when a test period ends without
 * one; it stays within [1, max(1, m - 1)] and starts at 1. While the cache fills, pages enter hot
 * until there are m - mc of them, then cold in test. No parameters.
 */
public final class ClockPro implements Policy
{
    private static final int NONE = -1;
    private static final byte HOT = 0;
    private static final byte COLD = 1;
    private static final byte NON_RESIDENT = 2;

    private final int capacity;
    private final int nonResidentCapacity;
    private final int minCold;
    private final int maxCold;
    private final KeyTable index;
    private final long[] keys;
    private final byte[] status;
    private final boolean[] referenced;
    private final boolean[] inTest;
    /** Circular links: newer = toward the head, wrapping from the head to the oldest page. */
    private final int[] newer;
    private final int[] older;
    private final int[] free;
    private int freeCount;
    /** The most recently placed page, or NONE when the list is empty. */
    private int head = NONE;
    private int handHot = NONE;
    private int handCold = NONE;
    private int handTest = NONE;
    private int hotCount;
    private int coldCount;
    private int nonResidentCount;
    private int coldTarget;

    public ClockPro(final int capacity)
    {
        this.capacity = capacity;
        nonResidentCapacity = capacity;
        minCold = 1;
        maxCold = Math.max(1, capacity - 1);
        coldTarget = minCold;
        final int slots = capacity + nonResidentCapacity + 1;
        index = new KeyTable(slots);
        keys = new long[slots];
        status = new byte[slots];
        referenced = new boolean[slots];
        inTest = new boolean[slots];
        newer = new int[slots];
        older = new int[slots];
        free = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            free[i] = slots - 1 - i;
        }
        freeCount = slots;
    }

    /** The current resident cold target mc, for tests. */
    public int coldTarget()
    {
        return coldTarget;
    }

    @Override
    public boolean record(final long key)
    {
        int slot = index.get(key);
        if (slot != KeyTable.MISSING && status[slot] != NON_RESIDENT)
        {
            referenced[slot] = true;
            return true;
        }
        final boolean tested = slot != KeyTable.MISSING;
        if (tested)
        {
            // A fault during the test period: out of the list while a frame is found, so no hand
            // can forget it meanwhile.
            unlink(slot);
            nonResidentCount--;
            adjustColdTarget(+1);
        }
        else
        {
            slot = allocate(key);
        }
        referenced[slot] = false;
        if (hotCount + coldCount < capacity)
        {
            if (tested || hotCount < capacity - coldTarget)
            {
                placeHot(slot);
            }
            else
            {
                placeCold(slot);
            }
            return false;
        }
        while (!runHandCold())
        {
            // keep sweeping until a frame is free
        }
        if (tested)
        {
            placeHot(slot);
            balanceHot();
        }
        else
        {
            placeCold(slot);
        }
        return false;
    }

    private void placeHot(final int slot)
    {
        status[slot] = HOT;
        inTest[slot] = false;
        hotCount++;
        linkAtHead(slot);
    }

    private void placeCold(final int slot)
    {
        status[slot] = COLD;
        inTest[slot] = true;
        coldCount++;
        linkAtHead(slot);
    }

    private void balanceHot()
    {
        while (hotCount > capacity - coldTarget)
        {
            runHandHot();
        }
    }

    /** One step of HAND_cold on the next resident cold page; true if it freed a frame. */
    private boolean runHandCold()
    {
        int page = handCold == NONE ? newer[head] : handCold;
        while (status[page] != COLD)
        {
            page = newer[page];
        }
        handCold = newer[page];
        if (!referenced[page])
        {
            coldCount--;
            if (inTest[page])
            {
                status[page] = NON_RESIDENT;
                nonResidentCount++;
                while (nonResidentCount > nonResidentCapacity)
                {
                    runHandTest();
                }
            }
            else
            {
                forget(page);
            }
            return true;
        }
        referenced[page] = false;
        if (inTest[page])
        {
            adjustColdTarget(+1);
            coldCount--;
            unlink(page);
            placeHot(page);
            balanceHot();
        }
        else
        {
            inTest[page] = true;
            unlink(page);
            linkAtHead(page);
        }
        return false;
    }

    /** HAND_hot: sweeps until it demotes one hot page. */
    private void runHandHot()
    {
        int page = handHot == NONE ? newer[head] : handHot;
        while (true)
        {
            final int next = newer[page];
            if (status[page] == HOT)
            {
                handHot = next == page ? NONE : next;
                unlink(page);
                if (referenced[page])
                {
                    referenced[page] = false;
                    linkAtHead(page);
                }
                else
                {
                    hotCount--;
                    coldCount++;
                    status[page] = COLD;
                    inTest[page] = false;
                    linkAtHead(page);
                    return;
                }
            }
            else
            {
                handHot = next;
                terminateTest(page);
            }
            page = handHot == NONE ? newer[head] : handHot;
        }
    }

    /** HAND_test: terminates the next test period it finds. */
    private void runHandTest()
    {
        int page = handTest == NONE ? newer[head] : handTest;
        while (!inTest[page] && status[page] != NON_RESIDENT)
        {
            page = newer[page];
        }
        handTest = newer[page];
        terminateTest(page);
    }

    private void terminateTest(final int page)
    {
        if (status[page] == NON_RESIDENT)
        {
            adjustColdTarget(-1);
            nonResidentCount--;
            forget(page);
        }
        else if (status[page] == COLD && inTest[page])
        {
            inTest[page] = false;
            adjustColdTarget(referenced[page] ? +1 : -1);
        }
    }

    private void adjustColdTarget(final int delta)
    {
        coldTarget = Math.max(minCold, Math.min(maxCold, coldTarget + delta));
    }

    private void linkAtHead(final int slot)
    {
        if (head == NONE)
        {
            newer[slot] = slot;
            older[slot] = slot;
        }
        else
        {
            // The head's newer neighbour is the oldest page: the new page goes between them.
            final int oldest = newer[head];
            older[slot] = head;
            newer[slot] = oldest;
            newer[head] = slot;
            older[oldest] = slot;
        }
        head = slot;
    }

    /** Takes a page off the circle, moving any hand (and the head) off it first. */
    private void unlink(final int slot)
    {
        final int next = newer[slot];
        final int prev = older[slot];
        final boolean alone = next == slot;
        if (handHot == slot)
        {
            handHot = alone ? NONE : next;
        }
        if (handCold == slot)
        {
            handCold = alone ? NONE : next;
        }
        if (handTest == slot)
        {
            handTest = alone ? NONE : next;
        }
        if (head == slot)
        {
            head = alone ? NONE : prev;
        }
        if (!alone)
        {
            newer[prev] = next;
            older[next] = prev;
        }
    }

    private void forget(final int slot)
    {
        unlink(slot);
        index.remove(keys[slot]);
        free[freeCount++] = slot;
    }

    private int allocate(final long key)
    {
        final int slot = free[--freeCount];
        keys[slot] = key;
        index.put(key, slot);
        return slot;
    }

    @Override
    public void finished()
    {
        int hot = 0;
        int cold = 0;
        int nonResident = 0;
        int walked = 0;
        if (head != NONE)
        {
            int page = head;
            do
            {
                if (older[newer[page]] != page || index.get(keys[page]) != page || ++walked > keys.length)
                {
                    throw new IllegalStateException("clock-pro: circle corrupt at slot " + page);
                }
                if (status[page] == HOT)
                {
                    hot++;
                }
                else if (status[page] == COLD)
                {
                    cold++;
                }
                else
                {
                    nonResident++;
                }
                page = older[page];
            }
            while (page != head);
        }
        if (hot != hotCount || cold != coldCount || nonResident != nonResidentCount || hot + cold > capacity ||
            nonResident > nonResidentCapacity || walked != index.size() || walked != keys.length - freeCount ||
            coldTarget < minCold || coldTarget > maxCold)
        {
            throw new IllegalStateException("clock-pro: hot=" + hot + "/" + hotCount + " cold=" + cold + "/" +
                coldCount + " non-resident=" + nonResident + "/" + nonResidentCount + " indexed=" + index.size() +
                " coldTarget=" + coldTarget + " capacity=" + capacity);
        }
    }
}
