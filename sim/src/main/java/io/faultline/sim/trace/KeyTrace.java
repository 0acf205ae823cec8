package io.faultline.sim.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys (pages or objects) of a trace in reference order, held in a growable primitive
 * array, each optionally tagged with the thread that made the reference so that one trace can
 * be split into one trace per thread.
 */
public final class KeyTrace
{
    private static final int INITIAL_CAPACITY = 1 << 12;

    private long[] keys = new long[INITIAL_CAPACITY];
    private int[] tags;
    private int size;
    private int pageSize = TraceOptions.DEFAULT_PAGE_SIZE;
    private final List<String> notes = new ArrayList<>();
    private int evmsPages;
    private String evms = "";

    /** A line the reader wants the user to see: the trace is partial, excerpts were skipped. */
    public void note(final String line)
    {
        notes.add(line);
    }

    public List<String> notes()
    {
        return notes;
    }

    /**
     * The trace was reduced by an EVMS of {@code pages} pages (a faultline trace's header):
     * replays at smaller sizes see every recorded reference as a miss.
     */
    public void evms(final int pages, final String description)
    {
        evmsPages = pages;
        evms = description;
    }

    /** Pages of the EVMS that reduced the trace; 0 if the format does not say. */
    public int evmsPages()
    {
        return evmsPages;
    }

    /** The EVMS configuration in words ("segq, 512 pages, lead 8, trail clock"), or "". */
    public String evmsDescription()
    {
        return evms;
    }

    /**
     * One line for the sizes below the EVMS, or empty: kVMTrace's reduced traces are exact
     * only at sizes of at least the EVMS.
     */
    public java.util.Optional<String> evmsWarning(final int[] sizes)
    {
        final StringBuilder below = new StringBuilder();
        for (final int size : sizes)
        {
            if (size < evmsPages)
            {
                below.append(below.length() == 0 ? "" : ",").append(size);
            }
        }
        return below.length() == 0 ? java.util.Optional.empty() : java.util.Optional.of("warning: sizes " + below
            + " are below the EVMS that recorded this trace (" + evms + "): the trace cannot tell hits from misses there");
    }

    /**
     * Makes room for {@code references} more keys at once, tagged if {@code tagged}: a reader that
     * knows how many it will add (a complete faultline trace's header) saves the copies of
     * growing one doubling at a time.
     */
    public void reserve(final long references, final boolean tagged)
    {
        final long want = Math.min(Integer.MAX_VALUE - 8L, size + Math.max(0, references));
        if (want > keys.length)
        {
            keys = Arrays.copyOf(keys, (int)want);
        }
        if (tagged && (tags == null || tags.length < keys.length))
        {
            tags = tags == null ? new int[keys.length] : Arrays.copyOf(tags, keys.length);
        }
    }

    /**
     * Appends the references {@code from} to {@code to} of one process, each tagged with its
     * thread, keyed as {@link PageKey#ofShift} keys them: a faultline trace's run (the reader's
     * fast path, {@code TraceReader.forEachReferenceRun}).
     */
    public void addRun(final int pid, final int[] tids, final long[] addresses, final int from, final int to,
        final int pageShift)
    {
        final int n = to - from;
        if (size + n > keys.length || tags == null || tags.length < keys.length)
        {
            reserve(Math.max(n, keys.length), true);
        }
        for (int i = from; i < to; i++)
        {
            keys[size] = PageKey.ofShift(pid, addresses[i], pageShift);
            tags[size] = tids[i];
            size++;
        }
    }

    /** Appends an untagged reference. */
    public void add(final long key)
    {
        ensureCapacity();
        keys[size++] = key;
    }

    /** Appends a reference made by thread {@code tag}. */
    public void add(final long key, final int tag)
    {
        ensureCapacity();
        if (tags == null)
        {
            tags = new int[keys.length];
        }
        keys[size] = key;
        tags[size] = tag;
        size++;
    }

    /** Bytes per page of the keys: the trace's own for faultline traces, else the option's. */
    public int pageSize()
    {
        return pageSize;
    }

    public void pageSize(final int bytes)
    {
        if (bytes <= 0)
        {
            throw new IllegalArgumentException("page size must be positive: pageSize=" + bytes);
        }
        pageSize = bytes;
    }

    public int size()
    {
        return size;
    }

    public boolean isEmpty()
    {
        return size == 0;
    }

    public long key(final int index)
    {
        if (index >= size)
        {
            throw new IndexOutOfBoundsException("index=" + index + " size=" + size);
        }
        return keys[index];
    }

    /** A copy of the keys, exactly {@link #size()} long. */
    public long[] toArray()
    {
        return Arrays.copyOf(keys, size);
    }

    /**
     * The keys split by tag, tags in order of first appearance. Untagged references (added
     * with {@link #add(long)}) fall under tag 0.
     */
    public Map<Integer, long[]> byTag()
    {
        final Map<Integer, KeyTrace> split = new LinkedHashMap<>();
        for (int i = 0; i < size; i++)
        {
            final int tag = tags == null ? 0 : tags[i];
            split.computeIfAbsent(tag, t -> new KeyTrace()).add(keys[i]);
        }
        final Map<Integer, long[]> result = new LinkedHashMap<>();
        split.forEach((tag, trace) -> result.put(tag, trace.toArray()));
        return result;
    }

    private void ensureCapacity()
    {
        if (size == keys.length)
        {
            if (size == Integer.MAX_VALUE - 8)
            {
                throw new IllegalStateException("trace too long for one array: size=" + size);
            }
            final int newCapacity = (int)Math.min(Integer.MAX_VALUE - 8L, (long)size * 2);
            keys = Arrays.copyOf(keys, newCapacity);
            if (tags != null)
            {
                tags = Arrays.copyOf(tags, newCapacity);
            }
        }
        else if (tags != null && tags.length < keys.length)
        {
            tags = Arrays.copyOf(tags, keys.length);
        }
    }
}
