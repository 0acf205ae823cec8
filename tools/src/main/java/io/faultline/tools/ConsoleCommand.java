package io.faultline.tools;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * The skeleton of a command that writes results to {@code out}, messages and progress to {@code
 * err}, and draws a progress line only where {@code err} is a terminal. Its {@code call()} lets a
 * reader's refusal ({@code TraceException}), a bad value ({@code IllegalArgumentException}) or a
 * limit reached ({@code LimitException}) out: {@link Main}'s handler turns each into one line and
 * the exit status of its kind ({@link Main#classify}), the same for every command.
 */
public abstract class ConsoleCommand implements Callable<Integer>
{
    protected final PrintStream out;
    protected final PrintStream err;
    /** Whether {@code err} is a terminal, where long passes draw a progress line. */
    protected final boolean terminal;

    protected ConsoleCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        this.out = out;
        this.err = err;
        this.terminal = terminal;
    }
}
