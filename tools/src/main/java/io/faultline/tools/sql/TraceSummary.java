package io.faultline.tools.sql;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.faultline.format.TraceEvent;

/**
 * The threads, processes and mappings tables counted in the export's one pass over a trace, row
 * for row what {@link TraceTables}' views of those names give {@code faultline sql} (docs/SQL.md;
 * SqlCommandTest compares the two): the events' side (starts, names, exits, in trace order: a
 * "first" or "last" is by that order) from the reading thread, the references' and evictions'
 * side from the encoding threads, a row group at a time, under this object's lock.
 */
final class TraceSummary
{
    /** A thread's or process's values from its events; null where it has none. */
    private static final class Events
    {
        Long startNs;
        Long creatorTid;
        String name;
        Long exitNs;
        // processes
        Long ppid;
        String executable;
        String exec;
        Long exitStatus;
    }

    /** Counts of references. */
    private static final class Refs
    {
        /** A thread's place among its process's threads with references, from 0. */
        int index;
        long refs;
        long writes;
        long pages;
        long firstNs = Long.MAX_VALUE;
        long lastNs = Long.MIN_VALUE;
    }

    private final Map<Long, Events> threadEvents = new LinkedHashMap<>();
    private final Map<Integer, Events> processEvents = new LinkedHashMap<>();
    // the references' side: under this object's lock
    private final Map<Long, Refs> threadRefs = new HashMap<>();
    private final Map<Integer, Refs> processRefs = new HashMap<>();
    /**
     * What is known of each (process, page) referenced, kept by runs of {@value #RUN} pages
     * ({@link #regions}: a run's slot by process and page / {@value #RUN}, so that pages near
     * each other share a cache line, and a table of runs, not of pages, is probed): a mask of
     * the threads that referenced it (bit i: the process's thread i, bit 63: any from the 63rd,
     * which {@link #threadPages} then holds) and the mapping of its first reference plus one
     * (negative: others followed, which {@link #mappingPages} holds). A hash set of pages cost
     * a cache miss a reference (JFR: most of the export's time).
     */
    private static final int RUN = 64;
    private final PairSet regions = new PairSet(true);
    private long[] threadMasks = new long[RUN * 64];
    private int[] firstMappings = new int[RUN * 64];
    private int runs;
    private final PairSet threadPages = new PairSet(false);
    private final PairSet mappingPages = new PairSet(false);
    private long[][] mappings = new long[6][16]; // refs, reads, writes, pages, evictions, dirty evictions, by id

    private static long key(final int pid, final int tid)
    {
        return (long)pid << 32 | (tid & 0xffffffffL);
    }

    /** An event other than an eviction, in trace order (the reading thread). */
    void onEvent(final TraceEvent e)
    {
        final Events p = processEvents.computeIfAbsent(e.pid(), k -> new Events());
        final Events t = threadEvents.computeIfAbsent(key(e.pid(), e.tid()), k -> new Events());
        if (e.type() == null)
        {
            return;
        }
        switch (e.type())
        {
            case PROCESS_START -> {
                t.startNs = min(t.startNs, e.timeNs());
                p.startNs = min(p.startNs, e.timeNs());
                if (p.ppid == null)
                {
                    p.ppid = e.a();
                    p.executable = e.text();
                }
            }
            case THREAD_START -> {
                t.startNs = min(t.startNs, e.timeNs());
                if (t.creatorTid == null)
                {
                    t.creatorTid = e.a();
                }
            }
            case THREAD_NAME -> t.name = e.text();
            case THREAD_EXIT -> t.exitNs = max(t.exitNs, e.timeNs());
            case PROCESS_EXIT -> {
                t.exitNs = max(t.exitNs, e.timeNs());
                p.exitNs = max(p.exitNs, e.timeNs());
                p.exitStatus = e.a();
            }
            case EXEC -> p.exec = e.text();
            default -> { }
        }
    }

    private static Long min(final Long a, final long b)
    {
        return a == null ? b : Math.min(a, b);
    }

    private static Long max(final Long a, final long b)
    {
        return a == null ? b : Math.max(a, b);
    }

    /**
     * References {@code 0..n)}: their process, thread, page, write flag, time and mapping id.
     */
    synchronized void onReferences(final long[] pid, final long[] tid, final long[] page, final long[] write,
        final long[] time, final long[] mapping, final int n)
    {
        long lastKey = 0;
        Refs thread = null;
        int lastPid = 0;
        Refs process = null;
        long lastRegion = -1;
        int run = 0;
        for (int i = 0; i < n; i++)
        {
            final int p = (int)pid[i];
            final long k = key(p, (int)tid[i]);
            if (process == null || p != lastPid)
            {
                process = processRefs.computeIfAbsent(p, x -> new Refs());
                lastPid = p;
                lastRegion = -1;
            }
            if (thread == null || k != lastKey)
            {
                final Refs owner = process;
                thread = threadRefs.computeIfAbsent(k, x -> {
                    final Refs r = new Refs();
                    r.index = owner.index++;
                    return r;
                });
                lastKey = k;
            }
            final int m = (int)mapping[i];
            if (m >= mappings[0].length)
            {
                for (int c = 0; c < mappings.length; c++)
                {
                    mappings[c] = java.util.Arrays.copyOf(mappings[c], Math.max(m + 1, mappings[c].length * 2));
                }
            }
            final long w = write[i];
            final long t = time[i];
            thread.refs++;
            thread.writes += w;
            thread.firstNs = Math.min(thread.firstNs, t);
            thread.lastNs = Math.max(thread.lastNs, t);
            process.refs++;
            process.writes += w;
            mappings[0][m]++;
            mappings[1][m] += 1 - w;
            mappings[2][m] += w;
            final long pg = page[i];
            final long region = pg / RUN;
            if (region != lastRegion)
            {
                run = run(p, region);
                lastRegion = region;
            }
            final int slot = run * RUN + (int)(pg % RUN);
            final long mask = threadMasks[slot];
            if (mask == 0)
            {
                process.pages++;
            }
            final long bit = thread.index < 63 ? 1L << thread.index : 1L << 63;
            if ((mask & bit) == 0)
            {
                threadMasks[slot] = mask | bit;
            }
            if (thread.index < 63 ? (mask & bit) == 0 : threadPages.add(k, pg))
            {
                thread.pages++;
            }
            final int first = firstMappings[slot];
            if (first == 0)
            {
                firstMappings[slot] = m + 1;
                mappings[3][m]++;
            }
            else if (first != m + 1)
            {
                final long process32 = p & 0xffffffffL;
                if (first > 0)
                {
                    firstMappings[slot] = -first;
                    mappingPages.add((long)(first - 1) << 32 | process32, pg);
                }
                if (mappingPages.add((long)m << 32 | process32, pg))
                {
                    mappings[3][m]++;
                }
            }
        }
    }

    /** The run of process {@code pid}'s pages {@code region * RUN} to {@code region * RUN + RUN - 1}, made if new. */
    private int run(final int pid, final long region)
    {
        if (regions.add(pid, region))
        {
            if ((runs + 1) * RUN > threadMasks.length)
            {
                threadMasks = java.util.Arrays.copyOf(threadMasks, threadMasks.length * 2);
                firstMappings = java.util.Arrays.copyOf(firstMappings, firstMappings.length * 2);
            }
            regions.value(runs++);
        }
        return (int)regions.value();
    }

    /** Evictions {@code 0..n)}: their mapping id and dirty flag. */
    synchronized void onEvictions(final long[] mapping, final long[] dirty, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final int m = (int)mapping[i];
            if (m >= mappings[0].length)
            {
                for (int c = 0; c < mappings.length; c++)
                {
                    mappings[c] = java.util.Arrays.copyOf(mappings[c], Math.max(m + 1, mappings[c].length * 2));
                }
            }
            mappings[4][m]++;
            mappings[5][m] += dirty[i];
        }
    }

    /** A row of a table: its values in the table's column order, null for NULL. */
    interface RowSink
    {
        void row(Object... values);
    }

    /** The threads table: by pid, then tid; a thread with references, a start or a name. */
    synchronized void threads(final RowSink sink)
    {
        final Map<Long, Boolean> ids = new java.util.TreeMap<>(Comparator.comparingInt((Long k) -> (int)(k >> 32))
            .thenComparingInt(k -> (int)(long)k));
        threadEvents.forEach((k, e) -> {
            if (e.startNs != null || e.name != null)
            {
                ids.put(k, true);
            }
        });
        threadRefs.keySet().forEach(k -> ids.put(k, true));
        for (final Long k : ids.keySet())
        {
            final Events e = threadEvents.getOrDefault(k, new Events());
            final Refs r = threadRefs.get(k);
            sink.row((int)(k >> 32), (int)(long)k, e.name, e.startNs, e.exitNs,
                e.creatorTid == null ? null : (int)(long)e.creatorTid, r == null ? 0L : r.refs, r == null ? 0L : r.writes,
                r == null ? 0L : r.pages, r == null ? null : r.firstNs, r == null ? null : r.lastNs);
        }
    }

    /** The processes table: by start, those without one last, then by pid. */
    synchronized void processes(final RowSink sink)
    {
        final Map<Integer, Integer> threads = new HashMap<>();
        threadRefs.keySet().forEach(k -> threads.merge((int)(k >> 32), 1, Integer::sum));
        final List<Integer> pids = new ArrayList<>(processEvents.keySet());
        processRefs.keySet().stream().filter(p -> !processEvents.containsKey(p)).forEach(pids::add);
        final Events none = new Events();
        pids.sort(Comparator.comparing((Integer p) -> processEvents.getOrDefault(p, none).startNs,
            Comparator.nullsLast(Comparator.naturalOrder())).thenComparing(Comparator.naturalOrder()));
        for (final int pid : pids)
        {
            final Events e = processEvents.getOrDefault(pid, none);
            final Refs r = processRefs.get(pid);
            sink.row(pid, e.ppid == null ? null : (int)(long)e.ppid, e.exec != null ? e.exec : e.executable, e.startNs,
                e.exitNs, e.exitStatus == null ? null : (int)(long)e.exitStatus, (long)threads.getOrDefault(pid, 0),
                r == null ? 0L : r.refs, r == null ? 0L : r.writes, r == null ? 0L : r.pages);
        }
    }

    /** The mappings table: a row per name, by id. */
    synchronized void mappings(final List<String> names, final RowSink sink)
    {
        for (int id = 0; id < names.size(); id++)
        {
            final boolean counted = id < mappings[0].length;
            sink.row(id, names.get(id), counted ? mappings[0][id] : 0L, counted ? mappings[1][id] : 0L,
                counted ? mappings[2][id] : 0L, counted ? mappings[3][id] : 0L, counted ? mappings[4][id] : 0L,
                counted ? mappings[5][id] : 0L);
        }
    }
}
