package io.faultline.format;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The name of the mapping each address of a trace lies in, as {@code perf report --sort dso}
 * names a sample's: {@code [heap]}, {@code [stack]} (the main thread's), {@code [stack:TID]} (a
 * thread's), {@code [anon]}, or the file whose zeroed tail (its .bss) the memory is. Built from
 * the trace's own events, fed in the reader's order ({@link #onEvent}): each trace-range event
 * carries the name /proc/self/maps gave its mapping when the agent registered it (FORMAT.md,
 * event 6), and each thread-start event the thread's descriptor, which glibc places at the top of
 * the thread's stack mapping (event 3). Unmapping forgets a range, mremap moves it, a fork's
 * child starts with its parent's names. A range registered with {@code faultline_trace_range}
 * is {@code [api]}; an address in no registered range (a trace recorded before the events named
 * their mappings, or an event lost to a partial trace) is {@code [unknown]}.
 */
public final class MappingNames
{
    public static final String ANON = "[anon]";
    public static final String API = "[api]";
    public static final String UNKNOWN = "[unknown]";

    /** A registered range, [start, end), and what the agent said it was. */
    private record Range(long start, long end, String name)
    {
    }

    private final Map<Integer, TreeMap<Long, Range>> ranges = new HashMap<>();
    /** Per process: a thread's descriptor address and the thread. */
    private final Map<Integer, TreeMap<Long, Integer>> threads = new HashMap<>();

    /** Takes in what {@code e} says about the process's mappings. */
    public void onEvent(final TraceEvent e)
    {
        if (e.type() == null)
        {
            return;
        }
        switch (e.type())
        {
            case TRACE_RANGE -> put(e.pid(), e.a(), e.a() + e.b(), e.c() == 1 && e.text().isEmpty() ? API : e.text());
            case THREAD_START -> {
                if (e.b() != 0)
                {
                    threads.computeIfAbsent(e.pid(), p -> new TreeMap<>()).put(e.b(), e.tid());
                }
            }
            case MUNMAP -> {
                forget(e.pid(), e.a(), e.a() + e.b());
                final TreeMap<Long, Integer> marks = threads.get(e.pid());
                if (marks != null)
                {
                    marks.subMap(e.a(), true, e.a() + e.b(), false).clear(); // the stacks unmapped
                }
            }
            case MREMAP -> move(e.pid(), e.a(), e.b(), e.c(), e.d());
            case FORK -> copy(e.pid(), (int)e.a());
            default -> { }
        }
    }

    /**
     * The name of the mapping that held {@code address} in process {@code pid}: a file's name is
     * its base name (libc.so.6), as perf shows a dso.
     */
    public String name(final int pid, final long address)
    {
        final TreeMap<Long, Range> map = ranges.get(pid);
        final Map.Entry<Long, Range> entry = map == null ? null : map.floorEntry(address);
        if (entry == null || address >= entry.getValue().end())
        {
            return UNKNOWN;
        }
        final Range r = entry.getValue();
        if (!r.name().isEmpty())
        {
            final int slash = r.name().lastIndexOf('/');
            return r.name().startsWith("/") && slash >= 0 ? r.name().substring(slash + 1) : r.name();
        }
        final TreeMap<Long, Integer> marks = threads.get(pid);
        final Map.Entry<Long, Integer> thread = marks == null ? null : marks.floorEntry(r.end() - 1);
        return thread != null && thread.getKey() >= r.start() ? "[stack:" + thread.getValue() + "]" : ANON;
    }

    /**
     * The registered range that holds {@code address} in process {@code pid}, as {start, end}, or
     * null: every address of it has the same {@link #name} until the next event this takes in.
     */
    public long[] range(final int pid, final long address)
    {
        final TreeMap<Long, Range> map = ranges.get(pid);
        final Map.Entry<Long, Range> entry = map == null ? null : map.floorEntry(address);
        return entry == null || address >= entry.getValue().end() ? null
            : new long[] {entry.getValue().start(), entry.getValue().end()};
    }

    /** The registered ranges of process {@code pid} that overlap [start, end), each as {start, end}, clipped to it. */
    public java.util.List<long[]> ranges(final int pid, final long start, final long end)
    {
        final java.util.List<long[]> found = new java.util.ArrayList<>();
        final TreeMap<Long, Range> map = ranges.get(pid);
        if (map == null || end <= start)
        {
            return found;
        }
        final Map.Entry<Long, Range> before = map.lowerEntry(start);
        if (before != null && before.getValue().end() > start)
        {
            found.add(new long[] {start, Math.min(end, before.getValue().end())});
        }
        for (final Range r : map.subMap(start, true, end, false).values())
        {
            found.add(new long[] {r.start(), Math.min(end, r.end())});
        }
        return found;
    }

    private void put(final int pid, final long start, final long end, final String name)
    {
        if (end <= start)
        {
            return;
        }
        forget(pid, start, end);
        ranges.computeIfAbsent(pid, p -> new TreeMap<>()).put(start, new Range(start, end, name));
    }

    /** Leaves out [start, end) of every range, keeping what lies outside it. */
    private void forget(final int pid, final long start, final long end)
    {
        final TreeMap<Long, Range> map = ranges.get(pid);
        if (map != null)
        {
            final Map.Entry<Long, Range> before = map.lowerEntry(start);
            if (before != null && before.getValue().end() > start)
            {
                final Range r = before.getValue();
                map.put(r.start(), new Range(r.start(), start, r.name()));
                if (r.end() > end)
                {
                    map.put(end, new Range(end, r.end(), r.name()));
                }
            }
            for (final Range r : map.subMap(start, true, end, false).values().toArray(new Range[0]))
            {
                map.remove(r.start());
                if (r.end() > end)
                {
                    map.put(end, new Range(end, r.end(), r.name()));
                }
            }
        }
    }

    /** mremap: what was at [from, from + length) is now at [to, to + newLength), under the same name. */
    private void move(final int pid, final long from, final long length, final long to, final long newLength)
    {
        final TreeMap<Long, Range> map = ranges.get(pid);
        final Map.Entry<Long, Range> entry = map == null ? null : map.floorEntry(from);
        final String name = entry != null && from < entry.getValue().end() ? entry.getValue().name() : null;
        forget(pid, from, from + length);
        if (name != null)
        {
            put(pid, to, to + newLength, name);
        }
    }

    private void copy(final int parent, final int child)
    {
        final TreeMap<Long, Range> map = ranges.get(parent);
        if (map != null)
        {
            ranges.put(child, new TreeMap<>(map));
        }
        final TreeMap<Long, Integer> marks = threads.get(parent);
        if (marks != null)
        {
            threads.put(child, new TreeMap<>(marks));
        }
    }
}
