package io.faultline.tracer;

/** A reason the recording cannot start or did not produce a trace; one line, names the fix. */
public final class RecordException extends RuntimeException
{
    public RecordException(final String message)
    {
        super(message);
    }
}
