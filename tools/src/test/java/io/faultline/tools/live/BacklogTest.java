package io.faultline.tools.live;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BacklogTest
{
    @TempDir
    Path spill;

    /**
     * A consumer that does not read until the producer is done: the producer never waits, the
     * heap holds the bound and the rest goes through spill files, and every record comes out in
     * order, with the files gone once read.
     */
    @Test
    void aReplayThatFallsBehindSpillsAndStillGetsEveryRecordInOrder() throws Exception
    {
        final int n = 100_000;
        final Backlog backlog = new Backlog(Backlog.BLOCK, spill);
        final CountDownLatch produced = new CountDownLatch(1);
        final Thread producer = new Thread(() ->
        {
            for (long i = 0; i < n; i++)
            {
                backlog.add(i, i * 7, i * 11);
                if (i % 100 == 99)
                {
                    backlog.publish();
                }
            }
            backlog.publish();
            produced.countDown();
        });
        producer.start();
        produced.await();
        producer.join();
        assertTrue(backlog.spilled() > n / 2, "spilled " + backlog.spilled());
        assertTrue(countFiles() > 0);
        final long[] batch = new long[1000 * Backlog.FIELDS];
        long next = 0;
        int got;
        while ((got = backlog.poll(batch)) > 0)
        {
            for (int i = 0; i < got; i++)
            {
                assertEquals(next, batch[i * Backlog.FIELDS]);
                assertEquals(next * 7, batch[i * Backlog.FIELDS + 1]);
                assertEquals(next * 11, batch[i * Backlog.FIELDS + 2]);
                next++;
            }
        }
        assertEquals(n, next);
        assertEquals(0, backlog.lag());
        assertNull(backlog.failure());
        backlog.discard();
        assertEquals(0, countFiles(), "spill files are deleted once read");
    }

    /** Producer and consumer at once, the consumer slower at first: still every record, in order. */
    @Test
    void aConcurrentConsumerSeesEveryRecordInOrder() throws Exception
    {
        final int n = 300_000;
        final Backlog backlog = new Backlog(Backlog.BLOCK * 2, spill);
        final Thread producer = new Thread(() ->
        {
            for (long i = 0; i < n; i++)
            {
                backlog.add(i, i, i);
                if (i % 37 == 0)
                {
                    backlog.publish();
                }
            }
            backlog.publish();
        });
        producer.start();
        final long[] batch = new long[512 * Backlog.FIELDS];
        long next = 0;
        while (next < n)
        {
            final int got = backlog.poll(batch);
            for (int i = 0; i < got; i++)
            {
                assertEquals(next++, batch[i * Backlog.FIELDS + 1]);
            }
            if (next < 50_000)
            {
                Thread.sleep(0, 100_000); // behind at first
            }
        }
        producer.join();
        assertEquals(0, backlog.poll(batch));
        backlog.discard();
        assertEquals(0, countFiles());
    }

    private long countFiles() throws Exception
    {
        try (Stream<Path> files = Files.list(spill))
        {
            return files.count();
        }
    }
}
