package io.faultline.damon.ops;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.faultline.damon.AddressRange;
import io.faultline.format.EventType;
import io.faultline.format.MappingNames;
import io.faultline.format.ReadSummary;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;

/**
 * Every reference of a faultline trace, indexed by process and page: for each (pid, page) the
 * sorted times at which the trace holds a reference to it. Answers "was this page referenced
 * in [t0, t1)?" in O(log n), and gives the pages a process touched, which stand in for its
 * mappings. Holds about 8 bytes per reference. Immutable once read: several monitors may share
 * one (report accuracy --attrs runs them on every core).
 */
public final class TraceIndex
{
    private final int pageSize;
    private final long endNs;
    private final String command;
    private final Map<Integer, Long2ObjectHashMap<long[]>> pages = new LinkedHashMap<>();
    /** Each process's pages, ascending; computed once, since iterating an Agrona map is not thread-safe. */
    private final Map<Integer, long[]> sortedPages = new LinkedHashMap<>();
    private final Map<Integer, Long> exitNs = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();

    private TraceIndex(final int pageSize, final long endNs, final String command)
    {
        this.pageSize = pageSize;
        this.endNs = endNs;
        this.command = command;
    }

    /**
     * Reads the whole trace.
     *
     * @throws io.faultline.format.TraceFormatException if it is not a complete, valid trace
     */
    public static TraceIndex read(final Path dir)
    {
        return read(dir, null);
    }

    /**
     * Reads the references of the trace that lie in the mapping named {@code mapping}
     * ({@link MappingNames}: [heap], [stack:TID], a file's base name), or all of them if null: a
     * report of one mapping's regions, heats or working set, as damo's views of a region.
     */
    public static TraceIndex read(final Path dir, final String mapping)
    {
        return read(dir, mapping, false);
    }

    /**
     * As {@link #read(Path, String)}; with {@code skipCorrupt}, corrupt excerpts are read past
     * and counted ({@code --skip-corrupt}), and {@link #notes} says how many.
     */
    public static TraceIndex read(final Path dir, final String mapping, final boolean skipCorrupt)
    {
        final MappingNames names = new MappingNames();
        try (TraceReader reader = TraceReader.open(dir, skipCorrupt))
        {
            reader.requireReferences("DAMON's trace operations set");
            final TraceHeader header = reader.header();
            final int pageSize = header.pageSize();
            final Map<Integer, Long2ObjectHashMap<LongArrayList>> building = new LinkedHashMap<>();
            final Map<Integer, Long> exits = new LinkedHashMap<>();
            final long[] last = {0};
            final ReadSummary summary = reader.forEach(new TraceVisitor()
            {
                @Override
                public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                    final long address, final boolean write)
                {
                    last[0] = Math.max(last[0], timeNs);
                    if (mapping != null && !mapping.equals(names.name(pid, address)))
                    {
                        return;
                    }
                    building.computeIfAbsent(pid, p -> new Long2ObjectHashMap<>())
                        .computeIfAbsent(Long.divideUnsigned(address, pageSize), p -> new LongArrayList())
                        .addLong(timeNs);
                }

                @Override
                public void onEvent(final TraceEvent event)
                {
                    names.onEvent(event);
                    last[0] = Math.max(last[0], event.timeNs());
                    if (event.type() == EventType.PROCESS_EXIT)
                    {
                        exits.put(event.pid(), event.timeNs());
                    }
                }
            });
            final String duration = header.get(TraceHeader.DURATION_NS);
            // duration_ns counts from the recording's start, the times delivered from the program's
            final long end = Math.max(last[0] + 1,
                duration == null ? 0 : reader.sinceProgramStart(Long.parseLong(duration.trim())));
            final TraceIndex index = new TraceIndex(pageSize, end, header.get(TraceHeader.COMMAND));
            building.forEach((pid, byPage) ->
            {
                final Long2ObjectHashMap<long[]> sorted = new Long2ObjectHashMap<>();
                byPage.forEach((page, times) ->
                {
                    final long[] array = times.toLongArray();
                    Arrays.sort(array);
                    sorted.put(page, array);
                });
                index.pages.put(pid, sorted);
                final long[] keys = new long[sorted.size()];
                int n = 0;
                final Long2ObjectHashMap<long[]>.KeyIterator it = sorted.keySet().iterator();
                while (it.hasNext())
                {
                    keys[n++] = it.nextLong();
                }
                Arrays.sort(keys);
                index.sortedPages.put(pid, keys);
            });
            index.exitNs.putAll(exits);
            index.notes.addAll(summary.notes(reader.dir()));
            return index;
        }
    }

    /**
     * What reading the trace has to say, one line each for stderr: that it is partial, that
     * corrupt excerpts were skipped, how far a broken queue was read ({@link ReadSummary#notes}).
     */
    public List<String> notes()
    {
        return Collections.unmodifiableList(notes);
    }

    public int pageSize()
    {
        return pageSize;
    }

    /** When the trace ends: its duration, or just after its last record or event. */
    public long endNs()
    {
        return endNs;
    }

    /** The traced command line, or null. */
    public String command()
    {
        return command;
    }

    /** Processes with references, in order of their first reference. */
    public List<Integer> pids()
    {
        return new ArrayList<>(pages.keySet());
    }

    /** When {@code pid} exited (its process-exit event), or the end of the trace. */
    public long endNs(final int pid)
    {
        return exitNs.getOrDefault(pid, endNs);
    }

    /** Whether the trace holds a reference of {@code pid} to {@code page} at a time in {@code [fromNs, toNs)}. */
    public boolean referenced(final int pid, final long page, final long fromNs, final long toNs)
    {
        final long[] times = times(pid, page);
        if (times == null)
        {
            return false;
        }
        final int i = firstAtOrAfter(times, fromNs);
        return i < times.length && times[i] < toNs;
    }

    /**
     * In how many of the sampling intervals {@code [fromNs + k * sampleNs, fromNs + (k + 1) *
     * sampleNs)}, for k from 0 to {@code samples - 1}, {@code pid} referenced {@code page}: the
     * page's exact access frequency in DAMON's unit.
     */
    public int sampledReferences(final int pid, final long page, final long fromNs, final long sampleNs,
        final long samples)
    {
        final long[] times = times(pid, page);
        if (times == null)
        {
            return 0;
        }
        final long toNs = fromNs + sampleNs * samples;
        int count = 0;
        long lastInterval = -1;
        for (int i = firstAtOrAfter(times, fromNs); i < times.length && times[i] < toNs; i++)
        {
            final long interval = (times[i] - fromNs) / sampleNs;
            if (interval != lastInterval)
            {
                count++;
                lastInterval = interval;
            }
        }
        return count;
    }

    /** Pages {@code pid} referenced at least once, in ascending order. */
    public long[] pages(final int pid)
    {
        final long[] sorted = sortedPages.get(pid);
        return sorted == null ? new long[0] : sorted.clone();
    }

    /** The pages {@code pid} touched as mappings: maximal runs of consecutive pages, in address order. */
    public List<AddressRange> touchedRanges(final int pid)
    {
        final long[] sorted = pages(pid);
        final List<AddressRange> ranges = new ArrayList<>();
        int i = 0;
        while (i < sorted.length)
        {
            int j = i;
            while (j + 1 < sorted.length && sorted[j + 1] == sorted[j] + 1)
            {
                j++;
            }
            ranges.add(new AddressRange(sorted[i] * pageSize, (sorted[j] + 1) * pageSize));
            i = j + 1;
        }
        return ranges;
    }

    private long[] times(final int pid, final long page)
    {
        final Long2ObjectHashMap<long[]> byPage = pages.get(pid);
        return byPage == null ? null : byPage.get(page);
    }

    private static int firstAtOrAfter(final long[] times, final long t)
    {
        int lo = 0;
        int hi = times.length;
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (times[mid] < t)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }
        return lo;
    }
}
