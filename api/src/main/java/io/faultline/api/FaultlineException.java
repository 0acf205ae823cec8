package io.faultline.api;

/**
 * A recording could not start, go on or complete. The message is one line that names the
 * problem and the fix.
 */
public final class FaultlineException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public FaultlineException(final String message)
    {
        super(message);
    }
}
