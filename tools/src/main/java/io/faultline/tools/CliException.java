package io.faultline.tools;

import io.faultline.format.InputProblem;
import io.faultline.format.TraceFormatException;
import io.faultline.sim.trace.TraceException;

/**
 * A problem with the user's input or environment, reported as one line on stderr with a
 * non-zero exit status of its class ({@link ExitStatus}). The message names the problem and,
 * where there is one, the fix.
 */
public final class CliException extends RuntimeException
{
    private final int exitCode;

    /** A usage error. */
    public CliException(final String message)
    {
        this(message, ExitStatus.USAGE);
    }

    public CliException(final String message, final int exitCode)
    {
        super(message);
        this.exitCode = exitCode;
    }

    /** A reader's refusal, with the exit status of its problem. */
    static CliException of(final TraceFormatException ex)
    {
        return new CliException(ex.getMessage(), status(ex.problem()));
    }

    /** A reader's refusal, with the exit status of its problem. */
    static CliException of(final TraceException ex)
    {
        return new CliException(ex.getMessage(), status(ex.problem()));
    }

    static int status(final InputProblem problem)
    {
        return switch (problem)
        {
            case UNREADABLE -> ExitStatus.ACCESS;
            case CORRUPT -> ExitStatus.CORRUPT;
            case MISUSED -> ExitStatus.USAGE;
        };
    }

    public int exitCode()
    {
        return exitCode;
    }
}
