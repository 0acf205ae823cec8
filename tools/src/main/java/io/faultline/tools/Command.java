package io.faultline.tools;

import java.io.PrintStream;
import java.util.List;

/** One subcommand of the {@code faultline} launcher. */
public interface Command
{
    /** The word that selects this command: {@code record}, {@code info}, ... */
    String name();

    /** One line for {@code faultline help}. */
    String summary();

    /**
     * Runs the command.
     *
     * @param args the arguments after the command word
     * @return the process exit status
     * @throws CliException for bad input, printed by {@link Main} as one line
     */
    int run(List<String> args, PrintStream out, PrintStream err) throws Exception;
}
