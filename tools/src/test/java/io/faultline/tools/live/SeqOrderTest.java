package io.faultline.tools.live;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SeqOrderTest
{
    /** Seqs 0..n-1 dealt to {@code streams} processes, each stream in order, interleaved in random bursts. */
    private static List<Long> interleaved(final int n, final int streams, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<List<Long>> byStream = new ArrayList<>();
        for (int s = 0; s < streams; s++)
        {
            byStream.add(new ArrayList<>());
        }
        for (long seq = 0; seq < n; seq++)
        {
            byStream.get(random.nextInt(streams)).add(seq);
        }
        final int[] at = new int[streams];
        final List<Long> arrival = new ArrayList<>();
        while (arrival.size() < n)
        {
            final int s = random.nextInt(streams);
            final int burst = 1 + random.nextInt(3_000); // as a ring drained up to its read limit
            for (int i = 0; i < burst && at[s] < byStream.get(s).size(); i++)
            {
                arrival.add(byStream.get(s).get(at[s]++));
            }
        }
        return arrival;
    }

    @Test
    void referencesOfInterleavedProcessesComeOutInSeqOrder()
    {
        final List<Long> out = new ArrayList<>();
        final SeqOrder order = new SeqOrder(1 << 16, (page, time) -> out.add(page));
        for (final long seq : interleaved(200_000, 3, 29))
        {
            order.add(seq, seq, 0);
        }
        order.flush();
        assertEquals(200_000, out.size());
        for (int i = 0; i < out.size(); i++)
        {
            assertEquals(i, out.get(i));
        }
        assertEquals(0, order.skipped());
        assertEquals(0, order.late());
    }

    @Test
    void aSeqNeverPublishedIsSkippedOnceTheWindowIsFullAndCountedLateIfItComesAfterAll()
    {
        final List<Long> out = new ArrayList<>();
        final SeqOrder order = new SeqOrder(1 << 12, (page, time) -> out.add(page));
        for (long seq = 0; seq < 10_000; seq++)
        {
            if (seq != 10)
            {
                order.add(seq, seq, 0);
            }
        }
        assertEquals(1, order.skipped());
        assertEquals(10_000 - 1, out.size(), "everything after the gap was delivered once the window filled");
        order.add(10, 10, 0);
        assertEquals(1, order.late());
        assertEquals(10L, out.get(out.size() - 1));
        // a gap at the end is only skipped by the flush
        order.add(10_001, 10_001, 0);
        assertEquals(10_000, out.size());
        order.flush();
        assertEquals(10_001L, out.get(out.size() - 1));
        assertEquals(2, order.skipped());
    }
}
