package io.faultline.tools;

import java.io.PrintStream;

/**
 * A command that a module outside tools adds to {@code faultline}, found with
 * {@link java.util.ServiceLoader} when its jar is on the class path: {@code sweep} lives in the
 * sweep module, whose Apache Spark dependency the tracer's build and jar should not carry. The
 * command gets {@link Main}'s grammar, converters and one-line errors like the built-in ones.
 */
public interface CommandProvider
{
    /** The command's word, e.g. {@code sweep}. */
    String name();

    /** What {@code faultline --help} lists for the command: the first line of its description. */
    String summary();

    /**
     * A new picocli command object (annotated with {@code @Command}) writing to {@code out} and
     * {@code err}.
     *
     * @param terminal whether {@code err} is a terminal, where long passes draw a progress line
     */
    Object command(PrintStream out, PrintStream err, boolean terminal);
}
