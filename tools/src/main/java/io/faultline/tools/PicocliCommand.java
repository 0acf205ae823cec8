package io.faultline.tools;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Supplier;

import io.faultline.format.TraceFormatException;
import picocli.CommandLine;

/**
 * Runs a command written with picocli annotations as one of {@link Main}'s {@link Command}s:
 * its name and summary come from its {@code @Command}, bad options and {@link CliException}s
 * end in one line on stderr, never a stack trace.
 */
final class PicocliCommand implements Command
{
    private final Supplier<Object> factory;
    private final CommandLine.Command annotation;

    PicocliCommand(final Supplier<Object> factory)
    {
        this.factory = factory;
        this.annotation = factory.get().getClass().getAnnotation(CommandLine.Command.class);
    }

    @Override
    public String name()
    {
        return annotation.name();
    }

    @Override
    public String summary()
    {
        return annotation.description().length == 0 ? "" : annotation.description()[0];
    }

    /** -h and --help for every picocli command (picocli's standard mixin would add an empty --version). */
    static final class Help
    {
        @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
        boolean help;
    }

    @Override
    public int run(final List<String> args, final PrintStream out, final PrintStream err)
    {
        final CommandLine line = new CommandLine(factory.get());
        line.setCommandName("faultline " + name());
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        line.setParameterExceptionHandler((ex, arguments) ->
        {
            final String qualified = ex.getCommandLine().getCommandSpec().qualifiedName(" ");
            err.println(qualified + ": " + ex.getMessage().replace('\n', ' ').strip()
                + "; " + qualified + " --help lists the options");
            return 2;
        });
        line.setExecutionExceptionHandler((ex, commandLine, parsed) ->
        {
            final String qualified = commandLine.getCommandSpec().qualifiedName(" ");
            if (ex instanceof CliException cli)
            {
                err.println(qualified + ": " + cli.getMessage());
                return cli.exitCode();
            }
            if (ex instanceof TraceFormatException || ex instanceof IllegalArgumentException)
            {
                err.println(qualified + ": " + ex.getMessage());
                return ex instanceof TraceFormatException ? 1 : 2;
            }
            err.println(qualified + ": " + ex);
            return 1;
        });
        return line.execute(args.toArray(String[]::new));
    }
}
