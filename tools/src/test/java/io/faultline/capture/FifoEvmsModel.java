package io.faultline.capture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * kVMTrace's FIFO evicted-virtual-mapping-set, as a model: which references of a sequence fault
 * (and so are recorded) when at most {@code capacity} pages are enabled and every page starts
 * disabled. A recorded reference enables its page; past capacity, the oldest enabled page is
 * disabled again.
 */
final class FifoEvmsModel
{
    private final int capacity;
    private final ArrayDeque<Long> fifo = new ArrayDeque<>();
    private final Set<Long> enabled = new HashSet<>();

    FifoEvmsModel(final int capacity)
    {
        this.capacity = capacity;
    }

    /** @return the references of {@code script} ("r3,w0,s2": kind letter, page) that are recorded, as "r3"... */
    List<String> recorded(final String script)
    {
        final List<String> recorded = new ArrayList<>();
        for (final String op : script.split(","))
        {
            final long page = Long.parseLong(op.substring(1));
            if (enabled.add(page))
            {
                // read(2) into a page is the kernel writing it: recorded as a write
                recorded.add((op.charAt(0) == 'r' ? "r" : "w") + page);
                fifo.addLast(page);
                if (fifo.size() > capacity)
                {
                    enabled.remove(fifo.removeFirst());
                }
            }
        }
        return recorded;
    }
}
