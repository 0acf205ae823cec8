package io.faultline.damon.live;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.faultline.damon.AddressRange;

/**
 * A set of disjoint address ranges, adjacent ones coalesced: the memory the agent traces in one
 * process, as its trace-range, untrace-range, munmap and mremap events describe it.
 */
final class RangeSet
{
    private final TreeMap<Long, Long> ranges = new TreeMap<>(Long::compareUnsigned);
    private long additions;

    void add(final long start, final long end)
    {
        if (Long.compareUnsigned(start, end) >= 0)
        {
            return;
        }
        additions++;
        long s = start;
        long e = end;
        final Map.Entry<Long, Long> before = ranges.floorEntry(s);
        if (before != null && Long.compareUnsigned(before.getValue(), s) >= 0)
        {
            s = before.getKey();
            e = max(e, before.getValue());
            ranges.remove(before.getKey());
        }
        Map.Entry<Long, Long> next;
        while ((next = ranges.ceilingEntry(s)) != null && Long.compareUnsigned(next.getKey(), e) <= 0)
        {
            e = max(e, next.getValue());
            ranges.remove(next.getKey());
        }
        ranges.put(s, e);
    }

    void remove(final long start, final long end)
    {
        if (Long.compareUnsigned(start, end) >= 0)
        {
            return;
        }
        for (final AddressRange r : overlapping(start, end))
        {
            ranges.remove(r.start());
            if (Long.compareUnsigned(r.start(), start) < 0)
            {
                ranges.put(r.start(), start);
            }
            if (Long.compareUnsigned(r.end(), end) > 0)
            {
                ranges.put(end, r.end());
            }
        }
    }

    /** mremap: what was traced of [from, from + len) is now at to. */
    void move(final long from, final long len, final long to)
    {
        if (from == to)
        {
            return;
        }
        final List<AddressRange> moved = new ArrayList<>();
        for (final AddressRange r : overlapping(from, from + len))
        {
            moved.add(new AddressRange(max(r.start(), from), min(r.end(), from + len)));
        }
        remove(from, from + len);
        for (final AddressRange r : moved)
        {
            add(r.start() - from + to, r.end() - from + to);
        }
    }

    /** How many times memory was added (moves included): a change count, for noticing growth cheaply. */
    long additions()
    {
        return additions;
    }

    boolean contains(final long address)
    {
        final Map.Entry<Long, Long> e = ranges.floorEntry(address);
        return e != null && Long.compareUnsigned(address, e.getValue()) < 0;
    }

    /** The ranges in address order. */
    List<AddressRange> list()
    {
        final List<AddressRange> out = new ArrayList<>(ranges.size());
        ranges.forEach((s, e) -> out.add(new AddressRange(s, e)));
        return out;
    }

    private List<AddressRange> overlapping(final long start, final long end)
    {
        final List<AddressRange> out = new ArrayList<>();
        final Map.Entry<Long, Long> before = ranges.lowerEntry(start);
        if (before != null && Long.compareUnsigned(before.getValue(), start) > 0)
        {
            out.add(new AddressRange(before.getKey(), before.getValue()));
        }
        for (final Map.Entry<Long, Long> e : ranges.subMap(start, true, end, false).entrySet())
        {
            out.add(new AddressRange(e.getKey(), e.getValue()));
        }
        return out;
    }

    private static long max(final long a, final long b)
    {
        return Long.compareUnsigned(a, b) >= 0 ? a : b;
    }

    private static long min(final long a, final long b)
    {
        return Long.compareUnsigned(a, b) <= 0 ? a : b;
    }
}
