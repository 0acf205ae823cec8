package io.faultline.tracer;

/**
 * What a recording has written so far, for a progress line: the {@link Logger} publishes its
 * statistics here from its drain loop every {@link Logger}'s exit check (50 ms), and any thread
 * may read them. Volatile fields, one writer: a reader sees each count as of some recent
 * publish, never a torn one; the counts may be from different publishes, which a display
 * redrawn twice a second does not mind.
 */
public final class RecordingCounts
{
    private volatile long references;
    private volatile int processes;
    private volatile int threads;

    /** Called by the logger's thread only. */
    void publish(final TraceStats stats)
    {
        references = stats.references;
        processes = stats.processCount();
        threads = stats.threadCount();
    }

    /** References recorded so far. */
    public long references()
    {
        return references;
    }

    /** Processes (each fork child; an exec'd image is the same process) seen so far. */
    public int processes()
    {
        return processes;
    }

    /** Threads seen so far, with those that have exited. */
    public int threads()
    {
        return threads;
    }
}
