package io.faultline.tools;

/**
 * The exit statuses of every command, one per class of error, so that a script can tell a typo
 * from a missing file from a damaged trace from a size beyond the machine. README ("Exit
 * status") and {@code faultline --help} list them; {@link CliException} carries one.
 */
final class ExitStatus
{
    private ExitStatus()
    {
    }

    static final int OK = 0;

    /** record: the recording stopped early (the trace is incomplete) and the program's own status was 0. */
    static final int INCOMPLETE = 1;

    /** A bad option, value or argument, or a file of the wrong kind for the command. */
    static final int USAGE = 2;

    /**
     * A file that does not exist, or that the OS will not let faultline read (an input) or write
     * (an output); the line gives the OS's reason.
     */
    static final int ACCESS = 3;

    /** An input that exists and can be read but does not parse: a corrupt, truncated or malformed trace. */
    static final int CORRUPT = 4;

    /** A size the policies' tables or the heap cannot hold, refused before the work starts. */
    static final int LIMIT = 5;

    /** A failure of faultline itself (a bug): the one line names the exception. */
    static final int INTERNAL = 70;
}
