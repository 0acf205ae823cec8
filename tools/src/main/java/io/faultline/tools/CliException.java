package io.faultline.tools;

/**
 * A problem with the user's input or environment, reported as one line on stderr with a
 * non-zero exit. The message names the problem and, where there is one, the fix.
 */
public final class CliException extends RuntimeException
{
    private final int exitCode;

    public CliException(final String message)
    {
        this(message, 2);
    }

    public CliException(final String message, final int exitCode)
    {
        super(message);
        this.exitCode = exitCode;
    }

    public int exitCode()
    {
        return exitCode;
    }
}
