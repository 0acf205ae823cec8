package io.faultline.tracer;

import io.faultline.format.InputProblem;

/**
 * A reason the recording cannot start or did not produce a trace; one line, names the fix. Its
 * {@link InputProblem} is the class of exit status {@code faultline record} gives it (README,
 * "Exit status"): a program that does not exist or may not be run is {@code UNREADABLE}, one of
 * the wrong kind (statically linked, setuid) or a bad option {@code MISUSED}.
 */
public final class RecordException extends RuntimeException
{
    private final InputProblem problem;

    public RecordException(final String message)
    {
        this(message, InputProblem.MISUSED);
    }

    public RecordException(final String message, final InputProblem problem)
    {
        super(message);
        this.problem = problem;
    }

    public InputProblem problem()
    {
        return problem;
    }
}
