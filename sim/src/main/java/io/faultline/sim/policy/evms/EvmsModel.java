package io.faultline.sim.policy.evms;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * kVMTrace's evicted virtual mapping set as the agent keeps it (native-shims/src/policy_segq.c),
 * one reference at a time: which references fault and are recorded, which fault softly, and
 * which pages leave with which eviction record. Kaplan, Smaragdakis and Wilson, "Flexible
 * reference trace reduction for VM simulations", ACM TOMACS 13(1), 2003; the two segments and
 * the r/w/R/W tags of kVMTrace's later versions (change log v0.4pre3, v0.5pre2, v0.4.3).
 * The semantics are trace-format/FORMAT.md's section "EVMS":
 * <ul>
 * <li>a reference to a page outside the set is a {@link Outcome#RECORD}: the page enters the
 *     leading FIFO segment, enabled; past the lead's size its oldest page leaves the lead;</li>
 * <li>under {@link Trail#NONE} (kVMTrace's FIFO) a page leaving the lead is evicted; otherwise
 *     it enters the trailing segment disabled, with its referenced flag clear, after the trailing
 *     segment, if full, has given up one entry;</li>
 * <li>a reference to a disabled trailing page is a {@link Outcome#SOFT} fault: it sets the
 *     referenced flag (and the re-referenced flag that makes the tag capital) and enables the
 *     page in place; a reference to an enabled page is a {@link Outcome#HIT};</li>
 * <li>any write while resident sets the dirty flag (the agent write-protects pages brought in
 *     by a read; the first write is a soft fault); without dirty tracking (record --no-dirty)
 *     only a write that faults anyway sets it, and a write to an enabled page is a hit;</li>
 * <li>trailing FIFO gives up its oldest entry; trailing CLOCK moves its hand from the oldest:
 *     a referenced entry is cleared, disabled and passed over (it becomes the newest), the first
 *     unreferenced one is evicted;</li>
 * <li>a deleted page (munmap, madvise, mremap) keeps its place and its flags; it is evicted
 *     when its turn comes (the end of the lead, or the hand), never passed over;</li>
 * <li>a flush (a range untraced, the process exiting) evicts the trailing segment from the
 *     hand on, then the lead, oldest first.</li>
 * </ul>
 */
public final class EvmsModel
{
    /** How the trailing segment evicts; NONE is kVMTrace's one-segment FIFO. */
    public enum Trail
    {
        NONE, FIFO, CLOCK
    }

    /** What a reference is, as the agent sees it. */
    public enum Outcome
    {
        /** the page was outside the set: a reference record */
        RECORD,
        /** a fault that is no record: a disabled resident page referenced again, or a first write */
        SOFT,
        /** no fault at all */
        HIT
    }

    /** Receives eviction records in the order the agent emits them. */
    @FunctionalInterface
    public interface Evictions
    {
        void evicted(long page, int tid, char tag, boolean deleted);
    }

    private static final class Entry
    {
        final long page;
        final int tid;
        boolean dirty;
        boolean referenced;
        boolean rereferenced;
        boolean enabled = true;
        boolean deleted;

        Entry(final long page, final int tid, final boolean dirty)
        {
            this.page = page;
            this.tid = tid;
            this.dirty = dirty;
        }

        char tag()
        {
            return rereferenced ? (dirty ? 'W' : 'R') : (dirty ? 'w' : 'r');
        }
    }

    private final int leadCapacity;
    private final int trailCapacity;
    private final Trail trail;
    private final Evictions evictions;
    private final ArrayDeque<Entry> lead = new ArrayDeque<>();
    private final ArrayDeque<Entry> trailing = new ArrayDeque<>(); // head: the CLOCK hand, or the oldest
    private final Map<Long, Entry> live = new HashMap<>();
    private boolean dirtyTracking = true;

    /**
     * @param capacity pages in both segments (the agent's {@code --evms})
     * @param leadPages pages of the leading segment; ignored (all of capacity) under {@link Trail#NONE}
     */
    public EvmsModel(final int capacity, final int leadPages, final Trail trail, final Evictions evictions)
    {
        if (capacity < 1 || (trail != Trail.NONE && (leadPages < 1 || leadPages >= capacity)))
        {
            throw new IllegalArgumentException("evms: need 1 <= lead < capacity: capacity=" + capacity + " lead=" + leadPages);
        }
        this.trail = trail;
        this.leadCapacity = trail == Trail.NONE ? capacity : leadPages;
        this.trailCapacity = capacity - leadCapacity;
        this.evictions = evictions;
    }

    /** Without dirty tracking (record --no-dirty): writes to enabled pages are not seen. */
    public EvmsModel withoutDirtyTracking()
    {
        dirtyTracking = false;
        return this;
    }

    /** One reference by thread {@code tid}; eviction records it causes go to the listener before it returns. */
    public Outcome reference(final long page, final int tid, final boolean write)
    {
        final Entry entry = live.get(page);
        if (entry == null)
        {
            if (lead.size() == leadCapacity)
            {
                leaveLead(lead.removeFirst());
            }
            final Entry admitted = new Entry(page, tid, write);
            lead.addLast(admitted);
            live.put(page, admitted);
            return Outcome.RECORD;
        }
        if (!entry.enabled)
        {
            entry.referenced = true;
            entry.rereferenced = true;
            entry.enabled = true;
            entry.dirty |= write;
            return Outcome.SOFT;
        }
        if (write && !entry.dirty && dirtyTracking)
        {
            entry.dirty = true;
            return Outcome.SOFT;
        }
        return Outcome.HIT;
    }

    private void leaveLead(final Entry entry)
    {
        if (trailCapacity == 0 || entry.deleted)
        {
            evict(entry);
            return;
        }
        if (trailing.size() == trailCapacity)
        {
            trailEvictOne();
        }
        entry.referenced = false;
        entry.enabled = false;
        trailing.addLast(entry);
    }

    private void trailEvictOne()
    {
        while (true)
        {
            final Entry entry = trailing.removeFirst();
            if (trail == Trail.CLOCK && entry.referenced && !entry.deleted)
            {
                entry.referenced = false;
                entry.enabled = false;
                trailing.addLast(entry);
                continue;
            }
            evict(entry);
            return;
        }
    }

    private void evict(final Entry entry)
    {
        if (!entry.deleted)
        {
            live.remove(entry.page);
        }
        evictions.evicted(entry.page, entry.tid, entry.tag(), entry.deleted);
    }

    /** Pages [from, to) were unmapped, discarded or moved away: each is evicted in its turn. */
    public void delete(final long from, final long to)
    {
        for (final Iterator<Map.Entry<Long, Entry>> it = live.entrySet().iterator(); it.hasNext(); )
        {
            final Entry entry = it.next().getValue();
            if (entry.page >= from && entry.page < to)
            {
                entry.deleted = true;
                entry.enabled = false;
                entry.referenced = false;
                it.remove();
            }
        }
    }

    /** Live pages of [from, to) leave now (a range untraced or disabled). */
    public void flush(final long from, final long to)
    {
        flush(trailing, from, to, false);
        flush(lead, from, to, false);
    }

    /** Every page leaves now: the process exits. */
    public void clear()
    {
        flush(trailing, 0, 0, true);
        flush(lead, 0, 0, true);
    }

    private void flush(final ArrayDeque<Entry> segment, final long from, final long to, final boolean all)
    {
        for (final Iterator<Entry> it = segment.iterator(); it.hasNext(); )
        {
            final Entry entry = it.next();
            if (all || (!entry.deleted && entry.page >= from && entry.page < to))
            {
                it.remove();
                evict(entry);
            }
        }
    }

    /** Pages held, live or deleted, in both segments. */
    public int size()
    {
        return lead.size() + trailing.size();
    }

    /** Checks the segments' sizes and the index; throws IllegalStateException when one is broken. */
    public void check()
    {
        long liveInSegments = lead.stream().filter(e -> !e.deleted).count() + trailing.stream().filter(e -> !e.deleted).count();
        if (lead.size() > leadCapacity || trailing.size() > trailCapacity || liveInSegments != live.size())
        {
            throw new IllegalStateException("evms: lead=" + lead.size() + "/" + leadCapacity + " trail=" + trailing.size() +
                "/" + trailCapacity + " live=" + live.size() + " in segments=" + liveInSegments);
        }
    }
}
