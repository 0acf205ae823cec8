package io.faultline.tracer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The agents' thread ledgers (faultline_shm.h, "Thread ledger": records published into the ring
 * per thread) against the records of each thread the trace holds: any difference is a record
 * lost (or doubled) between an agent and the trace, and names the thread. Checked per thread
 * wherever a ledger had an entry for it; threads that found none (an image that ran more threads
 * than a ledger holds) are checked together against the ledgers' overflow entries.
 */
final class ThreadLedger
{
    /** Records published per thread, by tid, over every image the thread ran in. */
    final Map<Integer, Long> published = new TreeMap<>();
    /** Records the agents published, all threads. */
    long total;
    /** One line per difference found. */
    final List<String> differences = new ArrayList<>();

    /**
     * Compares; a thread the agents published records for that has none in the trace is added to
     * {@code stats} (with 0 references), so that the header lists it.
     */
    static ThreadLedger check(final List<SlotCounters> slots, final TraceStats stats)
    {
        final ThreadLedger ledger = new ThreadLedger();
        long overflow = 0;
        for (final SlotCounters slot : slots)
        {
            for (final Map.Entry<Integer, Long> e : slot.published().entrySet())
            {
                if (e.getKey() == 0)
                {
                    overflow += e.getValue();
                }
                else
                {
                    ledger.published.merge(e.getKey(), e.getValue(), Long::sum);
                    stats.thread(e.getKey(), slot.pid());
                }
            }
        }
        long beyond = 0;
        for (final TraceStats.ThreadStats t : stats.threads().values())
        {
            final Long count = ledger.published.get(t.tid);
            if (count == null)
            {
                beyond += t.references;
            }
            else if (count != t.references)
            {
                ledger.differences.add(String.format("thread %d of process %d: its agent published %,d records, "
                    + "the trace holds %,d", t.tid, t.pid, count, t.references));
            }
        }
        if (beyond != overflow)
        {
            ledger.differences.add(String.format("threads beyond the agents' ledgers: their agents published %,d "
                + "records, the trace holds %,d", overflow, beyond));
        }
        return ledger;
    }
}
