package io.faultline.damon;

/**
 * The time the monitoring loop runs on. The kernel sleeps one sampling interval between
 * preparing and checking accesses (kdamond_usleep()); the {@code trace} operations set
 * replays a recorded trace on the trace's own clock instead, so sleeping only advances time.
 */
public interface MonitorClock
{
    /** Nanoseconds since monitoring started. */
    long nowNs();

    /** Lets {@code us} microseconds pass. */
    void sleepUs(long us) throws InterruptedException;

    /** A clock that only moves when the loop sleeps: for replaying a recorded trace. */
    static MonitorClock virtual()
    {
        return new MonitorClock()
        {
            private long now;

            @Override
            public long nowNs()
            {
                return now;
            }

            @Override
            public void sleepUs(final long us)
            {
                now += us * 1000;
            }
        };
    }

    /** The wall clock (System.nanoTime), for monitoring a live process. */
    static MonitorClock system()
    {
        return since(System.nanoTime());
    }

    /** The wall clock, its time 0 at {@code origin} (a System.nanoTime value: CLOCK_MONOTONIC on Linux). */
    static MonitorClock since(final long origin)
    {
        return new MonitorClock()
        {
            @Override
            public long nowNs()
            {
                return System.nanoTime() - origin;
            }

            @Override
            public void sleepUs(final long us) throws InterruptedException
            {
                final long until = System.nanoTime() + us * 1000;
                long left;
                while ((left = until - System.nanoTime()) > 0)
                {
                    Thread.sleep(left / 1_000_000, (int)(left % 1_000_000));
                }
            }
        };
    }
}
