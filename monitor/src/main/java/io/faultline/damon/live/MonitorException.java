package io.faultline.damon.live;

/** Monitoring a live program failed for a reason the user can act on; the message says how. */
public final class MonitorException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public MonitorException(final String message)
    {
        super(message);
    }
}
