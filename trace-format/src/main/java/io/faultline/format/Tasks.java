package io.faultline.format;

import java.util.concurrent.ExecutionException;

/** Waiting for work done on other threads, as every module of faultline does it. */
public final class Tasks
{
    private Tasks()
    {
    }

    /** Waits until {@code thread} has ended; an interrupt meanwhile is kept for the caller, not lost. */
    public static void join(final Thread thread)
    {
        boolean interrupted = false;
        while (thread.isAlive())
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What a task's failure is to its waiter: the task's own unchecked exception, thrown as it
     * was; its Error rethrown here; a checked cause wrapped in an IllegalStateException.
     */
    public static RuntimeException unchecked(final ExecutionException ex)
    {
        final Throwable cause = ex.getCause();
        if (cause instanceof RuntimeException r)
        {
            return r;
        }
        if (cause instanceof Error e)
        {
            throw e;
        }
        return new IllegalStateException(cause);
    }
}
