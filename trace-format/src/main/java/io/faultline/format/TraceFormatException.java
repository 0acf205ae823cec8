package io.faultline.format;

/** A trace directory that is missing, incomplete, corrupt or of an unknown version. */
public final class TraceFormatException extends RuntimeException
{
    public TraceFormatException(final String message)
    {
        super(message);
    }

    public TraceFormatException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
