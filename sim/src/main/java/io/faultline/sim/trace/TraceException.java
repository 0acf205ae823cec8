package io.faultline.sim.trace;

import io.faultline.format.InputProblem;

/**
 * A trace that cannot be read: malformed, empty, or of an unknown format. The message is one
 * line naming the file and, for text traces, the 1-based line number and the offending text.
 */
public final class TraceException extends RuntimeException
{
    private static final int MAX_QUOTED = 60;

    private final InputProblem problem;

    /** A malformed trace. */
    public TraceException(final String message)
    {
        this(message, InputProblem.CORRUPT);
    }

    public TraceException(final String message, final InputProblem problem)
    {
        super(message);
        this.problem = problem;
    }

    public TraceException(final String message, final InputProblem problem, final Throwable cause)
    {
        super(message, cause);
        this.problem = problem;
    }

    /** What is wrong: the file is unreadable, malformed, or not what the command reads. */
    public InputProblem problem()
    {
        return problem;
    }

    /** {@code file:line: problem: 'text'}, the text truncated and made printable on one line. */
    public static TraceException malformedLine(
        final String file, final long lineNumber, final String problem, final String text)
    {
        return new TraceException(file + ":" + lineNumber + ": " + problem + ": '" + quote(text) + "'");
    }

    static String quote(final String text)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length() && sb.length() < MAX_QUOTED; i++)
        {
            final char c = text.charAt(i);
            sb.append(c < ' ' || c == 0x7f ? '?' : c);
        }
        if (text.length() > MAX_QUOTED)
        {
            sb.append("...");
        }
        return sb.toString();
    }
}
