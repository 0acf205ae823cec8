package io.faultline.sim;

/**
 * A simulation refused before it starts because its policies' tables cannot hold a cache that
 * large, or the heap cannot hold the runs that would go at once. The message is one line that
 * names the limit and the fix.
 */
public final class LimitException extends RuntimeException
{
    public LimitException(final String message)
    {
        super(message);
    }
}
