package io.faultline.tools;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Entry point of the {@code ./faultline} launcher: dispatches to one {@link Command} per word.
 * Bad input ends in one line on stderr and a non-zero exit status.
 */
public final class Main
{
    private Main()
    {
    }

    static Map<String, Command> commands()
    {
        final Map<String, Command> commands = new LinkedHashMap<>();
        for (final Command command : List.of(
            new RecordCommand(),
            new InfoCommand(),
            new DumpCommand(),
            new SimulateCommand(),
            new MrcCommand(),
            new PicocliCommand(MonitorCommand::new),
            new PicocliCommand(ReportCommand::new)))
        {
            commands.put(command.name(), command);
        }
        return commands;
    }

    public static void main(final String[] args)
    {
        // A buffered stdout: dump writes millions of lines; System.out would flush far more often.
        final PrintStream out = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false);
        final int status = run(args, out, System.err);
        out.flush();
        System.exit(status);
    }

    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final Map<String, Command> commands = commands();
        if (args.length == 0)
        {
            err.println("faultline: missing command; known commands: " + String.join(", ", commands.keySet())
                + " (faultline help shows what each does)");
            return 2;
        }
        final String word = args[0];
        if (word.equals("help") || word.equals("--help") || word.equals("-h"))
        {
            usage(out, commands);
            return 0;
        }
        final Command command = commands.get(word);
        if (command == null)
        {
            err.println("faultline: unknown command '" + word + "'; known commands: "
                + String.join(", ", commands.keySet()));
            return 2;
        }
        try
        {
            return command.run(new ArrayList<>(Arrays.asList(args).subList(1, args.length)), out, err);
        }
        catch (final CliException ex)
        {
            err.println("faultline " + word + ": " + ex.getMessage());
            return ex.exitCode();
        }
        catch (final Exception ex)
        {
            err.println("faultline " + word + ": " + ex);
            return 1;
        }
        finally
        {
            out.flush();
        }
    }

    private static void usage(final PrintStream out, final Map<String, Command> commands)
    {
        out.println("usage: faultline COMMAND [OPTIONS] ...");
        out.println();
        for (final Command command : commands.values())
        {
            out.printf("  %-10s %s%n", command.name(), command.summary());
        }
        out.println();
        out.println("faultline COMMAND --help shows a command's options.");
    }
}
