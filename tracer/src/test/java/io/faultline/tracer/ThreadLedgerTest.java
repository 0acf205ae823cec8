package io.faultline.tracer;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The thread ledgers against the trace: a thread whose records did not all reach the trace is
 * named with both counts, a thread the trace never saw is listed, an image's threads beyond its
 * ledger are checked together, and a whole trace gives no difference.
 */
class ThreadLedgerTest
{
    private static SlotCounters slot(final int pid, final Map<Integer, Long> published)
    {
        return new SlotCounters(pid, 1, 0, 0, 0, published.values().stream().mapToLong(Long::longValue).sum(),
            0, 0, 0, 0, 0, 0, published);
    }

    private static TraceStats trace(final int pid, final int... tidAndReferences)
    {
        final TraceStats stats = new TraceStats(4096);
        for (int i = 0; i < tidAndReferences.length; i += 2)
        {
            stats.thread(tidAndReferences[i], pid).references = tidAndReferences[i + 1];
        }
        return stats;
    }

    @Test
    void aWholeTraceHasNoDifference()
    {
        final ThreadLedger ledger = ThreadLedger.check(List.of(slot(100, Map.of(100, 5L, 101, 7L))),
            trace(100, 100, 5, 101, 7));
        assertEquals(List.of(), ledger.differences);
        assertEquals(Map.of(100, 5L, 101, 7L), ledger.published);
    }

    @Test
    void aThreadMissingRecordsIsNamedWithBothCounts()
    {
        final ThreadLedger ledger = ThreadLedger.check(List.of(slot(100, Map.of(100, 5L, 101, 6_800L))),
            trace(100, 100, 5, 101, 4_670));
        assertEquals(List.of("thread 101 of process 100: its agent published 6,800 records, the trace holds 4,670"),
            ledger.differences);
    }

    @Test
    void aThreadTheTraceNeverSawIsListedWithNoRecords()
    {
        final TraceStats stats = trace(100, 100, 5);
        final ThreadLedger ledger = ThreadLedger.check(List.of(slot(100, Map.of(100, 5L, 102, 3L))), stats);
        assertEquals(List.of("thread 102 of process 100: its agent published 3 records, the trace holds 0"),
            ledger.differences);
        assertEquals(0, stats.threads().get(102).references);
    }

    @Test
    void threadsBeyondTheLedgersAreCheckedTogether()
    {
        // tids 200 and 201 found no entry: their agent counted 9 records in the overflow entry
        final List<SlotCounters> slots = List.of(slot(100, Map.of(100, 5L, 0, 9L)));
        assertEquals(List.of(), ThreadLedger.check(slots, trace(100, 100, 5, 200, 4, 201, 5)).differences);
        assertEquals(List.of("threads beyond the agents' ledgers: their agents published 9 records, the trace holds 8"),
            ThreadLedger.check(slots, trace(100, 100, 5, 200, 4, 201, 4)).differences);
    }

    @Test
    void aThreadsRecordsOverSeveralImagesAreSummed()
    {
        // an exec keeps the tid: two slots, one thread
        final ThreadLedger ledger = ThreadLedger.check(
            List.of(slot(100, Map.of(100, 5L)), slot(100, Map.of(100, 2L))), trace(100, 100, 7));
        assertEquals(List.of(), ledger.differences);
    }
}
