package io.faultline.capture;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code record --mode moca} writes for one thread whose accesses, interval by interval,
 * are known: the model of Moca's interval mode (trace-format/FORMAT.md, "Moca mode"; Beniamine
 * and Huard, "Moca: an efficient memory trace collection system", 2016).
 * <p>
 * Every page is disabled when an interval starts. Per interval in which the thread touched any
 * page, one chunk, numbered from 0 per thread; in it, one record per page, in the order of the
 * thread's first access to it. A disabled page's first access faults (a read or a write fault);
 * a page enabled by a read is write-protected, so its first write faults too (a write fault);
 * nothing else faults. The record's kind is its first fault's.
 */
final class MocaModel
{
    /** One page of a chunk: its page index, its first fault's kind, its read and write faults. */
    record Page(long page, boolean write, int reads, int writes)
    {
        @Override
        public String toString()
        {
            return (write ? "w" : "r") + page + ":" + reads + "r" + writes + "w";
        }
    }

    /** One chunk: its id and its pages in order. */
    record Chunk(long id, List<Page> pages)
    {
        @Override
        public String toString()
        {
            return "chunk " + id + " " + pages;
        }
    }

    private MocaModel()
    {
    }

    /**
     * @param log intervals separated by '|', each a comma list of {@code rK}/{@code wK} (the
     *            workload's own log of what it touched in each interval)
     */
    static List<Chunk> expected(final String log)
    {
        final List<Chunk> chunks = new ArrayList<>();
        for (final String interval : log.split("\\|"))
        {
            if (interval.isEmpty())
            {
                continue;
            }
            // page -> {first fault is a write, reads, writes, write-protected (enabled by a read)}
            final Map<Long, int[]> pages = new LinkedHashMap<>();
            for (final String access : interval.split(","))
            {
                final boolean write = access.charAt(0) == 'w';
                final long page = Long.parseLong(access.substring(1));
                final int[] state = pages.get(page);
                if (state == null)
                {
                    pages.put(page, write ? new int[] {1, 0, 1, 0} : new int[] {0, 1, 0, 1});
                }
                else if (write && state[3] == 1)
                {
                    state[2]++;
                    state[3] = 0;
                }
            }
            final List<Page> records = new ArrayList<>();
            pages.forEach((page, s) -> records.add(new Page(page, s[0] == 1, s[1], s[2])));
            chunks.add(new Chunk(chunks.size(), records));
        }
        return chunks;
    }
}
