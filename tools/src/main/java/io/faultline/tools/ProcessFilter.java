package io.faultline.tools;

import picocli.CommandLine.Option;

/**
 * {@code --pid} and {@code --tid}: one process's or one thread's references of a faultline trace,
 * a picocli mixin (dump, export, and every command that reads traces of any format through
 * {@link TraceInputOptions}). A command's help may word them its own way ({@link OptionWording},
 * keys {@code pid} and {@code tid}).
 */
final class ProcessFilter
{
    @Option(names = "--pid", paramLabel = "N", descriptionKey = "pid", description = "only this process's references")
    Integer pid;

    @Option(names = "--tid", paramLabel = "N", descriptionKey = "tid", description = "only this thread's references")
    Integer tid;

    /** The process to keep, -1 for all. */
    int pid()
    {
        return pid == null ? -1 : Values.atLeast("--pid", pid, 0);
    }

    /** The thread to keep, -1 for all. */
    int tid()
    {
        return tid == null ? -1 : Values.atLeast("--tid", tid, 0);
    }

    /** Whether either was given. */
    boolean given()
    {
        return pid != null || tid != null;
    }
}
