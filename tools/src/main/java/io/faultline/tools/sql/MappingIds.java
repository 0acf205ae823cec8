package io.faultline.tools.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.faultline.format.MappingNames;
import io.faultline.format.TraceEvent;

/**
 * The mapping of each reference's address as a small number, the row of the {@code mappings}
 * table that holds its name as {@code faultline info} gives it ({@link MappingNames}). A trace's
 * references are faults, each mostly to a page not referenced lately, so a cache of pages would
 * mostly miss: this one holds mapping ranges, in a direct-mapped table indexed by 2 MiB region
 * and process, emptied by every event that changes the names (a {@link MappingNames} lookup per
 * reference, two tree searches and a new string for a file's name, would cost the load most of
 * its time). An eviction's page is named by the mapping that holds it at its eviction record or,
 * if that mapping was unmapped before the record (munmap, mremap: a deleted page's record may
 * follow the call), by the range it was last in: the mapping of its last reference, as
 * {@code info} counts pages.
 */
final class MappingIds
{
    private static final int SLOTS = 1 << 10;
    private static final int REGION_SHIFT = 21;

    private final MappingNames names = new MappingNames();
    private final Map<String, Integer> ids = new HashMap<>();
    private final List<String> byId = new ArrayList<>();
    private final int[] pids = new int[SLOTS];
    private final long[] starts = new long[SLOTS];
    private final long[] ends = new long[SLOTS];
    private final int[] values = new int[SLOTS];
    private final int[] epochs = new int[SLOTS];
    private int epoch = 1;
    /** Per process, ranges unmapped or moved, by start: {end, id}, the latest over the earlier. */
    private final Map<Integer, TreeMap<Long, long[]>> gone = new HashMap<>();

    /** Takes in what {@code e} says about the mappings, as {@link MappingNames#onEvent} does. */
    void onEvent(final TraceEvent e)
    {
        if (e.type() == null)
        {
            return;
        }
        switch (e.type())
        {
            case MUNMAP, MREMAP -> {
                bury(e.pid(), e.a(), e.a() + e.b());
                names.onEvent(e);
                epoch++;
            }
            case TRACE_RANGE, THREAD_START, FORK -> {
                names.onEvent(e);
                epoch++;
            }
            default -> { }
        }
    }

    /** Keeps the names of the ranges in [start, end) for the evictions that may follow their unmapping. */
    private void bury(final int pid, final long start, final long end)
    {
        for (final long[] r : names.ranges(pid, start, end))
        {
            final TreeMap<Long, long[]> map = gone.computeIfAbsent(pid, p -> new TreeMap<>());
            map.subMap(r[0], true, r[1], false).clear();
            map.put(r[0], new long[] {r[1], id(names.name(pid, r[0]))});
        }
    }

    /** The id of the mapping that holds {@code address} in process {@code pid} now. */
    int id(final int pid, final long address)
    {
        final int slot = slot(pid, address);
        if (cached(slot, pid, address))
        {
            return values[slot];
        }
        final int id = id(names.name(pid, address));
        final long[] range = names.range(pid, address);
        if (range != null)
        {
            epochs[slot] = epoch;
            pids[slot] = pid;
            starts[slot] = range[0];
            ends[slot] = range[1];
            values[slot] = id;
        }
        return id;
    }

    /** The id of an evicted page's mapping: the one holding it now, else the unmapped one it was last in. */
    int evictedId(final int pid, final long address)
    {
        final int slot = slot(pid, address);
        if (cached(slot, pid, address))
        {
            return values[slot];
        }
        if (names.range(pid, address) == null)
        {
            final TreeMap<Long, long[]> map = gone.get(pid);
            final Map.Entry<Long, long[]> entry = map == null ? null : map.floorEntry(address);
            if (entry != null && address < entry.getValue()[0])
            {
                return (int)entry.getValue()[1];
            }
        }
        return id(pid, address);
    }

    private static int slot(final int pid, final long address)
    {
        return (int)(((address >>> REGION_SHIFT) * 0x9E3779B97F4A7C15L + pid) >>> 54) & (SLOTS - 1);
    }

    /** The slot holds the range, of this epoch, that holds {@code address} in {@code pid}. */
    private boolean cached(final int slot, final int pid, final long address)
    {
        return epochs[slot] == epoch && pids[slot] == pid && address >= starts[slot] && address < ends[slot];
    }

    private int id(final String name)
    {
        Integer id = ids.get(name);
        if (id == null)
        {
            id = byId.size();
            byId.add(name);
            ids.put(name, id);
        }
        return id;
    }

    /** Every name given an id, the id its index. */
    List<String> names()
    {
        return byId;
    }
}
