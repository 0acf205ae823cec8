package io.faultline.format;

import java.util.Arrays;

/**
 * The pages a block's references brought in and its evictions have not yet taken out, oldest
 * first: the model by which a block names an evicted page in a byte. Under FIFO (kVMTrace's
 * EVMS, FORMAT.md "EVMS") the page an eviction takes out is the oldest one brought in, so its
 * position here is 0. The pages an eviction passes over go to the back, as a CLOCK hand's pass
 * makes a referenced page the newest: under segq's CLOCK trail that is the EVMS's own order, and
 * under FIFO it moves a page that stays on (one the agent keeps while a system call uses it)
 * out of the way of the pages after it. The writer and the reader keep the same list, each from
 * the block's items alone, so that a block reads without any other: an eviction of a page
 * brought in by an earlier block names its page in full.
 */
final class ResidentPages
{
    /** How far from the oldest page the writer looks for an evicted page before naming it in full. */
    static final int SEARCH = 64;
    private static final long GONE = -1;

    private long[] pages = new long[256];
    private int[] tids = new int[256];
    private int head;
    private int tail;
    /** Pages taken out between head and tail: skipped by every search until compacted away. */
    private int gone;
    private int takenTid;

    void clear()
    {
        head = 0;
        tail = 0;
        gone = 0;
    }

    /** A reference brought in {@code page} (a page number, never negative) for thread {@code tid}. */
    void admit(final long page, final int tid)
    {
        if (tail == pages.length)
        {
            if (head > pages.length / 2)
            {
                System.arraycopy(pages, head, pages, 0, tail - head);
                System.arraycopy(tids, head, tids, 0, tail - head);
                tail -= head;
                head = 0;
            }
            else
            {
                pages = Arrays.copyOf(pages, pages.length * 2);
                tids = Arrays.copyOf(tids, tids.length * 2);
            }
        }
        pages[tail] = page;
        tids[tail] = tid;
        tail++;
    }

    /**
     * The writer's side: takes {@code page} out if it is among the {@link #SEARCH} oldest pages.
     *
     * @return its position (0: the oldest), or -1 if it is not there
     */
    int take(final long page)
    {
        int position = 0;
        for (int i = head; i < tail && position < SEARCH; i++)
        {
            if (pages[i] == GONE)
            {
                continue;
            }
            if (pages[i] == page)
            {
                take(i, position);
                return position;
            }
            position++;
        }
        return -1;
    }

    private long[] passedPages = new long[SEARCH];
    private int[] passedTids = new int[SEARCH];

    /** Takes out the page at {@code index}, the {@code passed} pages before it going to the back, oldest first. */
    private void take(final int index, final long passed)
    {
        if (passedPages.length < passed)
        {
            passedPages = new long[(int)passed];
            passedTids = new int[(int)passed];
        }
        int n = 0;
        for (int i = head; i < index; i++)
        {
            if (pages[i] != GONE)
            {
                passedPages[n] = pages[i];
                passedTids[n] = tids[i];
                n++;
                pages[i] = GONE;
                gone++;
            }
        }
        remove(index);
        for (int i = 0; i < n; i++)
        {
            admit(passedPages[i], passedTids[i]);
        }
    }

    /**
     * The reader's side: takes out the page at {@code position} (0: the oldest).
     *
     * @return its page number, or -1 if the list holds fewer pages
     */
    long takeAt(final long position)
    {
        long left = position;
        for (int i = head; i < tail; i++)
        {
            if (pages[i] == GONE)
            {
                continue;
            }
            if (left-- == 0)
            {
                final long page = pages[i];
                take(i, position);
                return page;
            }
        }
        return -1;
    }

    /** The thread that brought in the page {@link #take} or {@link #takeAt} took out last. */
    int takenTid()
    {
        return takenTid;
    }

    private void remove(final int index)
    {
        takenTid = tids[index];
        pages[index] = GONE;
        gone++;
        while (head < tail && pages[head] == GONE)
        {
            head++;
            gone--;
        }
        if (gone > 32 && gone > (tail - head) / 2)
        {
            // a page near the oldest that stays (evicted after the block ends) would otherwise make
            // every search walk the growing run of pages taken out behind it
            int to = head;
            for (int i = head; i < tail; i++)
            {
                if (pages[i] != GONE)
                {
                    pages[to] = pages[i];
                    tids[to] = tids[i];
                    to++;
                }
            }
            tail = to;
            gone = 0;
        }
    }
}
