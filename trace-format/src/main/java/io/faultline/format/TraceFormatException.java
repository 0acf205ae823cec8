package io.faultline.format;

/** A trace directory that is missing, incomplete, corrupt or of an unknown version. */
public final class TraceFormatException extends RuntimeException
{
    private final InputProblem problem;

    /** A corrupt trace. */
    public TraceFormatException(final String message)
    {
        this(message, InputProblem.CORRUPT);
    }

    public TraceFormatException(final String message, final InputProblem problem)
    {
        super(message);
        this.problem = problem;
    }

    /** A corrupt trace. */
    public TraceFormatException(final String message, final Throwable cause)
    {
        super(message, cause);
        problem = InputProblem.CORRUPT;
    }

    public InputProblem problem()
    {
        return problem;
    }
}
