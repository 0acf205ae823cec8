package io.faultline.tools.live;

/**
 * Puts references back in the trace's order, global seq order (FORMAT.md, "Order"), in which
 * mrc and simulate replay a trace. The recorder drains each process's ring in seq order but the
 * rings in turn, so references of several processes arrive interleaved out of order; seqs are
 * dense (every trapped reference takes one tick of the shared clock, emit.c), so the next
 * reference to deliver is always {@code next}, and a window indexed by seq holds those that came
 * early. The window grows (doubling) to {@code maxWindow}; a seq missing while the window is full
 * is taken for lost (a tick its process took but never published: the process was killed
 * between the two) and skipped. Should it come after all, it is delivered late, out of order,
 * and counted: the live results may then differ from an offline replay of the trace.
 */
final class SeqOrder
{
    /** Where references go, in seq order. */
    interface Sink
    {
        void reference(long page, long timeNs);
    }

    private static final int INITIAL_WINDOW = 1 << 12;

    private final int maxWindow;
    private final Sink sink;
    private long[] pages = new long[INITIAL_WINDOW];
    private long[] times = new long[INITIAL_WINDOW];
    private long[] present = new long[INITIAL_WINDOW / 64];
    private long next;
    /** One past the largest seq held. */
    private long end;
    private long skipped;
    private long late;

    SeqOrder(final int maxWindow, final Sink sink)
    {
        if (Integer.bitCount(maxWindow) != 1 || maxWindow < INITIAL_WINDOW)
        {
            throw new IllegalArgumentException("window must be a power of two of at least " + INITIAL_WINDOW
                + ": maxWindow=" + maxWindow);
        }
        this.maxWindow = maxWindow;
        this.sink = sink;
    }

    void add(final long seq, final long page, final long timeNs)
    {
        if (seq < next)
        {
            late++;
            sink.reference(page, timeNs);
            return;
        }
        if (seq == next && end <= next)
        {
            // the usual case, one process or the next in line: no window
            next++;
            end = next;
            sink.reference(page, timeNs);
            return;
        }
        while (seq - next >= pages.length)
        {
            if (pages.length < maxWindow)
            {
                grow();
            }
            else
            {
                skipOne();
            }
        }
        final int at = (int)(seq & (pages.length - 1));
        pages[at] = page;
        times[at] = timeNs;
        present[at >>> 6] |= 1L << at;
        end = Math.max(end, seq + 1);
        deliverReady();
    }

    /** The end of the stream: everything held, in seq order, gaps skipped. */
    void flush()
    {
        while (next < end)
        {
            skipOne();
        }
    }

    /** Seqs given up for lost. */
    long skipped()
    {
        return skipped;
    }

    /** References that came after their seq had been given up for lost, delivered out of order. */
    long late()
    {
        return late;
    }

    /** References held waiting for an earlier one. */
    long held()
    {
        return end - next;
    }

    private void deliverReady()
    {
        while (next < end)
        {
            final int at = (int)(next & (pages.length - 1));
            if ((present[at >>> 6] & (1L << at)) == 0)
            {
                return;
            }
            present[at >>> 6] &= ~(1L << at);
            next++;
            sink.reference(pages[at], times[at]);
        }
    }

    /** Delivers or skips {@code next}, then whatever is ready after it. */
    private void skipOne()
    {
        final int at = (int)(next & (pages.length - 1));
        if ((present[at >>> 6] & (1L << at)) == 0)
        {
            skipped++;
            next++;
        }
        deliverReady();
    }

    private void grow()
    {
        final int size = pages.length * 2;
        final long[] newPages = new long[size];
        final long[] newTimes = new long[size];
        final long[] newPresent = new long[size / 64];
        for (long seq = next; seq < end; seq++)
        {
            final int from = (int)(seq & (pages.length - 1));
            if ((present[from >>> 6] & (1L << from)) != 0)
            {
                final int to = (int)(seq & (size - 1));
                newPages[to] = pages[from];
                newTimes[to] = times[from];
                newPresent[to >>> 6] |= 1L << to;
            }
        }
        pages = newPages;
        times = newTimes;
        present = newPresent;
    }
}
