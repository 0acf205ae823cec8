package io.faultline.tools;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.FaultlineVersion;
import io.faultline.format.InputProblem;
import io.faultline.format.Startup;
import io.faultline.format.TraceFormatException;
import io.faultline.sim.LimitException;
import io.faultline.sim.report.Progress;
import io.faultline.sim.trace.TraceException;
import io.faultline.tracer.AgentLibrary;
import picocli.CommandLine;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * Entry point of the {@code ./faultline} launcher: one picocli command per word, so that every
 * command reads options the same way ({@code --opt v} and {@code --opt=v}, {@link Values}' sizes,
 * whole numbers and durations, {@code --help}). Bad input ends in one line on stderr and exit
 * status 2, never picocli's usage dump; a command's own errors ({@link CliException}) likewise.
 */
public final class Main implements Callable<Integer>
{
    /** The exit status of bad input, as before picocli and as picocli's own {@code ExitCode.USAGE}. */
    static final int BAD_INPUT = ExitStatus.USAGE;

    private static final int HELP_WIDTH = 100;

    private static final String DESCRIPTION = "Record the complete page reference trace of an unmodified Linux program; "
        + "describe, dump, export and replay traces into cache simulators; monitor access patterns with DAMON.";

    private static final String[] FOOTER = {"", "faultline COMMAND --help (or faultline help COMMAND) shows a command's "
        + "options.", "",
        "Exit status: 0 done; 1 record: the recording stopped early and the program exited 0, sweep: a task "
        + "failed; 2 usage: a bad option, value or argument, or a file of the wrong kind; 3 a file that does not "
        + "exist or that the OS will not let faultline read, write or run (the OS's reason follows); 4 a corrupt "
        + "input: a trace, record or imported file that does not parse; 5 a limit: a size beyond the policies' tables "
        + "or the heap; 70 an internal error (a bug). record otherwise exits with the program's status (128+N if "
        + "signal N killed it)."};

    /** What picocli's help command says of itself, listed without building it. */
    private static final String HELP_SUMMARY = "Display help information about the specified command.";

    /**
     * What {@code faultline --help} lists for {@code sweep}, also where the sweep module's jar is
     * not on the class path (the launcher runs sweep from that jar); its description starts with it.
     */
    public static final String SWEEP_SUMMARY = "Replay traces through cache policies at several sizes as Apache Spark "
        + "tasks: simulate's grid, on every core of this machine or on a cluster.";

    /**
     * The command words, in the order help lists them, with what the list says of each. The
     * summaries are compile-time constants, so listing them loads no command class: the top level
     * ({@code --help}, {@code --version}, an unknown word) builds no command (see {@link #run}).
     */
    private static final Map<String, String> COMMANDS = commands();

    private static Map<String, String> commands()
    {
        final Map<String, String> commands = new LinkedHashMap<>();
        commands.put("record", RecordCommand.SUMMARY);
        commands.put("info", InfoCommand.SUMMARY);
        commands.put("dump", DumpCommand.SUMMARY);
        commands.put("export", ExportCommand.SUMMARY);
        commands.put("sql", SqlCommand.SUMMARY);
        commands.put("simulate", SimulateCommand.SUMMARY);
        commands.put("mrc", MrcCommand.SUMMARY);
        commands.put("sweep", SWEEP_SUMMARY);
        commands.put("monitor", MonitorCommand.SUMMARY);
        commands.put("report", ReportCommand.SUMMARY);
        commands.put("pack", PackCommand.Pack.SUMMARY);
        commands.put("unpack", PackCommand.Unpack.SUMMARY);
        commands.put("upgrade", UpgradeCommand.SUMMARY);
        commands.put("completion", CompletionCommand.SUMMARY);
        return Collections.unmodifiableMap(commands);
    }

    private final PrintStream err;

    private CommandLine self;

    private Main(final PrintStream err)
    {
        this.err = err;
    }

    /**
     * {@code faultline --version}: the version every trace's header carries ({@link FaultlineVersion}).
     * Public for the commands of other modules ({@link CommandProvider}).
     */
    public static final class Version implements IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return new String[] {"faultline " + FaultlineVersion.VERSION};
        }
    }

    @Override
    public Integer call()
    {
        err.println("faultline: missing command; known commands: " + commandNames(self)
            + " (faultline help shows what each does)");
        return BAD_INPUT;
    }

    public static void main(final String[] args)
    {
        Startup.prepare();
        final String word = args.length > 0 ? args[0] : "";
        if (word.equals("record") || (word.equals("monitor") && List.of(args).contains("--")))
        {
            // while picocli reads the arguments (commandLine awaits it), and the agent's copy too
            Startup.warmInBackground(Main::locateAgent, () -> Startup.warmTraces(false));
        }
        else if (WARMED.contains(word) && !exportsParquet(args))
        {
            // while picocli reads the arguments; commandLine awaits it
            Startup.warmInBackground(() -> Startup.warmTraces(true));
        }
        // A buffered stdout: dump writes millions of lines; System.out would flush far more often.
        final PrintStream out = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false);
        final int status = run(args, out, System.err, Progress.stderrIsTerminal());
        out.flush();
        // A command refused while parsing never waited for the warm-up: exiting under it, Chronicle's
        // classes met the shutdown half initialised, and a thread of theirs printed a stack trace.
        Startup.awaitWarm();
        System.exit(status);
    }

    /**
     * {@code export --to parquet}: it reads a trace alone, as info does, with no Chronicle to warm,
     * and the warm-up's thread took a CPU from the export's (JFR: a sixth of its samples).
     */
    private static boolean exportsParquet(final String[] args)
    {
        for (int i = 1; i < args.length; i++)
        {
            if (args[i].equals("--to=parquet") || args[i].equals("--to") && i + 1 < args.length
                && args[i + 1].equals("parquet"))
            {
                return true;
            }
        }
        return false;
    }

    /** The agent's copy outside the jar, found or made ahead of the recording that needs it. */
    private static void locateAgent()
    {
        try
        {
            AgentLibrary.locate();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Runs a command with no progress lines (as when stderr is not a terminal). */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        return run(args, out, err, false);
    }

    /**
     * Runs a command.
     *
     * @param terminal whether {@code err} is a terminal, where long passes draw a progress line
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err, final boolean terminal)
    {
        // The top level's answers, as picocli gives them, without building the command line: a
        // new JVM's picocli took some 0.1 s of CPU to build and render it (BENCHMARKS.md, "Start-up")
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V")))
        {
            out.println(new Version().getVersion()[0]);
            return 0;
        }
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help"))
            && COMMANDS.keySet().containsAll(providers().keySet()))
        {
            out.print(topLevelHelp());
            return 0;
        }
        if (args.length == 0)
        {
            err.println("faultline: missing command; known commands: " + String.join(", ", COMMANDS.keySet())
                + ", help (faultline help shows what each does)");
            return BAD_INPUT;
        }
        try
        {
            return commandLine(out, err, terminal, commandToBuild(args)).execute(args);
        }
        catch (final Error ex)
        {
            // picocli hands only Exceptions to the handler; an Error ends here, as one line too
            final CliException cli = classify(ex);
            err.println("faultline: " + cli.getMessage());
            return cli.exitCode();
        }
        finally
        {
            out.flush();
        }
    }

    /**
     * The commands that may write a trace or read a monitoring record through Chronicle Queue, or
     * call libc through JNA: see {@link Startup#warmInBackground}. Not those that only read traces
     * (info, dump, simulate, mrc): the trace reader walks the queue files itself and loads zstd-jni
     * on a thread of its own (BlockDecoder.preload), and a warm-up of Chronicle beside it only took
     * a CPU from them: info of a small trace 0.21 s without it against 0.35 s with it (BENCHMARKS.md,
     * "Start-up").
     */
    private static final Set<String> WARMED = Set.of("record", "export", "monitor", "report");

    /** Every command, built whole (completion's script covers them all). */
    static final String ALL = "*";

    /**
     * The one command {@code args} run, which {@link #commandLine} builds whole, by reflection over
     * its options; the others are listed by name and summary only. Reflecting over every command's
     * options took a third of a second before {@code --version} could answer (BENCHMARKS.md,
     * "Start-up"). Null for the top level: its help, version and unknown words need no command.
     */
    static String commandToBuild(final String[] args)
    {
        if (args.length == 0)
        {
            return null;
        }
        if (args[0].equals("completion"))
        {
            return ALL;
        }
        final String word = args[0].equals("help") && args.length > 1 ? args[1] : args[0];
        if (COMMANDS.containsKey(word) || providers().containsKey(word))
        {
            return word;
        }
        return args[0].equals("help") ? "help" : null; // help itself, of the top level or an unknown word
    }

    /**
     * The command tree, writing to {@code out} and {@code err}.
     *
     * @param only the one command to build whole, {@link #ALL}, or null for none: the others are
     *        listed (name and summary) and refused if run
     */
    static CommandLine commandLine(final PrintStream out, final PrintStream err, final boolean terminal,
        final String only)
    {
        final Main main = new Main(err);
        final CommandLine commandLine = new CommandLine(topLevel(main));
        main.self = commandLine;
        final Map<String, CommandProvider> providers = providers();
        for (final Map.Entry<String, String> command : COMMANDS.entrySet())
        {
            final String word = command.getKey();
            final boolean whole = ALL.equals(only) || word.equals(only);
            final CommandProvider provider = providers.get(word);
            if (whole && provider != null)
            {
                commandLine.addSubcommand(word, provided(provider, out, err, terminal));
            }
            else if (word.equals("sweep") && provider == null)
            {
                commandLine.addSubcommand(word, sweepElsewhere());
            }
            else
            {
                commandLine.addSubcommand(word, whole ? command(word, out, err, terminal)
                    : listed(word, command.getValue()));
            }
        }
        providers.forEach((word, provider) ->
        {
            if (!COMMANDS.containsKey(word))
            {
                commandLine.addSubcommand(word, ALL.equals(only) || word.equals(only)
                    ? provided(provider, out, err, terminal) : listed(word, provider.summary()));
            }
        });
        commandLine.addSubcommand("help", only == null ? listed("help", HELP_SUMMARY) : new CommandLine(
            new CommandLine.HelpCommand()));

        // Settings below apply to the subcommands added above.
        Values.register(commandLine);
        commandLine.setOverwrittenOptionsAllowed(true);
        commandLine.setUsageHelpWidth(HELP_WIDTH);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        for (final String launcher : List.of("record", "monitor"))
        {
            final CommandLine sub = commandLine.getSubcommands().get(launcher);
            if (sub != null)
            {
                // record and monitor pass everything after the program's name on to the program.
                sub.setStopAtPositional(true);
            }
        }
        // No command may use Chronicle or JNA while Startup's thread initialises them
        commandLine.setExecutionStrategy(parseResult ->
        {
            Startup.awaitWarm();
            return new CommandLine.RunLast().execute(parseResult);
        });
        commandLine.setParameterExceptionHandler((ex, args) ->
        {
            err.println(ex.getCommandLine().getCommandSpec().qualifiedName() + ": " + oneLine(ex));
            return BAD_INPUT;
        });
        commandLine.setExecutionExceptionHandler((ex, failed, parseResult) ->
        {
            out.flush();
            final String who = failed.getCommandSpec().qualifiedName();
            final CliException cli = classify(ex);
            err.println(who + ": " + cli.getMessage());
            return cli.exitCode();
        });
        return commandLine;
    }

    /**
     * faultline --help as picocli renders the top level of {@link #commandLine} (GrammarTest holds
     * the two equal): its usage, description, options, the commands with their summaries, and the
     * footer, wrapped as picocli wraps (lines under {@value #HELP_WIDTH} columns, a command's
     * summary continued two columns further in).
     */
    static String topLevelHelp()
    {
        final List<String> lines = new ArrayList<>(List.of("usage: faultline COMMAND [OPTIONS] ...", ""));
        lines.addAll(wrapped(DESCRIPTION, "", ""));
        lines.addAll(List.of("  -h, --help      Show this help message and exit.",
            "  -V, --version   Print version information and exit.", "", "Commands:"));
        final Map<String, String> listed = new LinkedHashMap<>(COMMANDS);
        listed.put("help", HELP_SUMMARY);
        final int column = listed.keySet().stream().mapToInt(String::length).max().orElse(0);
        listed.forEach((word, summary) -> lines.addAll(wrapped(summary, "  " + word + " ".repeat(column - word.length() + 2),
            " ".repeat(column + 6))));
        for (final String line : FOOTER)
        {
            lines.addAll(line.isEmpty() ? List.of("") : wrapped(line, "", ""));
        }
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }

    /** {@code text} wrapped at spaces into lines shorter than {@value #HELP_WIDTH}, after the prefixes. */
    private static List<String> wrapped(final String text, final String first, final String next)
    {
        final List<String> lines = new ArrayList<>();
        final StringBuilder line = new StringBuilder(first);
        boolean empty = true;
        for (final String word : text.split(" "))
        {
            if (!empty && line.length() + 1 + word.length() >= HELP_WIDTH)
            {
                lines.add(line.toString());
                line.setLength(0);
                line.append(next);
                empty = true;
            }
            line.append(empty ? "" : " ").append(word);
            empty = false;
        }
        lines.add(line.toString());
        return lines;
    }

    /**
     * The top level, built as picocli's API builds a command, not from annotations (as the
     * commands are): what it lists needs no reflection.
     */
    private static CommandSpec topLevel(final Main main)
    {
        final CommandSpec spec = CommandSpec.wrapWithoutInspection(main).name("faultline").mixinStandardHelpOptions(true)
            .versionProvider(new Version());
        spec.usageMessage().synopsisHeading("usage: ").customSynopsis("faultline COMMAND [OPTIONS] ...")
            .descriptionHeading("%n").description(DESCRIPTION).commandListHeading("%nCommands:%n").footer(FOOTER);
        return spec;
    }

    private static CommandLine provided(final CommandProvider provider, final PrintStream out, final PrintStream err,
        final boolean terminal)
    {
        final CommandLine sub = new CommandLine(provider.command(out, err, terminal));
        return sub.getCommandSpec().findOption("--format") == null ? sub : TraceInputOptions.withFormatsFooter(sub);
    }

    /** A command as the top level lists it: its name and summary, without its options. */
    private static CommandLine listed(final String word, final String summary)
    {
        final Callable<Integer> unbuilt = () ->
        {
            throw new IllegalStateException("faultline " + word + " ran without being built");
        };
        final CommandSpec spec = CommandSpec.wrapWithoutInspection(unbuilt).name(word);
        spec.usageMessage().description(summary);
        return new CommandLine(spec);
    }

    /**
     * {@code sweep} where the sweep module is not on the class path: the launcher runs it from
     * that module's jar, so it is listed, and run here it says where it lives.
     */
    private static CommandLine sweepElsewhere()
    {
        final Callable<Integer> elsewhere = () ->
        {
            throw new CliException("sweep runs from the sweep module's jar (sweep/target/faultline-sweep.jar), which is "
                + "not on this class path; run ./faultline sweep, the launcher, once mvn -q package -DskipTests has "
                + "built it");
        };
        final CommandSpec spec = CommandSpec.wrapWithoutInspection(elsewhere).name("sweep");
        spec.usageMessage().description(SWEEP_SUMMARY);
        spec.parser().unmatchedArgumentsAllowed(true);
        return new CommandLine(spec);
    }

    private static Map<String, CommandProvider> providers;

    /** The commands of other modules on the class path ({@link CommandProvider}), by word. */
    private static synchronized Map<String, CommandProvider> providers()
    {
        if (providers == null)
        {
            final Map<String, CommandProvider> found = new LinkedHashMap<>();
            for (final CommandProvider provider : ServiceLoader.load(CommandProvider.class))
            {
                found.putIfAbsent(provider.name(), provider);
            }
            providers = found;
        }
        return providers;
    }

    private static CommandLine command(final String word, final PrintStream out, final PrintStream err,
        final boolean terminal)
    {
        return switch (word)
        {
            case "record" -> new CommandLine(new RecordCommand(out, err, terminal));
            case "info" -> new CommandLine(new InfoCommand(out, err));
            case "dump" -> new CommandLine(new DumpCommand(out, err));
            case "export" -> new CommandLine(new ExportCommand(out, err, terminal));
            case "sql" -> new CommandLine(new SqlCommand(out, err, terminal, System.in, System.console() != null));
            case "simulate" -> TraceInputOptions.withFormatsFooter(new CommandLine(new SimulateCommand(out, err, terminal)));
            case "mrc" -> TraceInputOptions.withFormatsFooter(new CommandLine(new MrcCommand(out, err, terminal)));
            case "monitor" -> new CommandLine(new MonitorCommand(err, terminal));
            case "report" -> new CommandLine(new ReportCommand()).addSubcommand("reuse",
                TraceInputOptions.withFormatsFooter(new CommandLine(new ReuseCommand(out, err, terminal))))
                .addSubcommand("callsites", new CommandLine(new CallSitesCommand(out, err)));
            case "pack" -> new CommandLine(new PackCommand.Pack(out));
            case "unpack" -> new CommandLine(new PackCommand.Unpack(out));
            case "upgrade" -> new CommandLine(new UpgradeCommand(out));
            case "completion" -> new CommandLine(new CompletionCommand(out));
            default -> throw new IllegalArgumentException("no command " + word);
        };
    }

    /** Any exception a command let out, as one line and the exit status of its class ({@link ExitStatus}). */
    static CliException classify(final Throwable ex)
    {
        if (ex instanceof CliException cli)
        {
            return cli;
        }
        if (ex instanceof TraceFormatException trace)
        {
            return CliException.of(trace); // the message names the trace
        }
        if (ex instanceof TraceException trace)
        {
            return CliException.of(trace);
        }
        if (ex instanceof LimitException)
        {
            return new CliException(ex.getMessage(), ExitStatus.LIMIT);
        }
        if (ex instanceof IllegalArgumentException)
        {
            return new CliException(ex.getMessage(), ExitStatus.USAGE); // a value a command checks itself (a plot's name)
        }
        if (ex instanceof IOException || ex instanceof UncheckedIOException)
        {
            // Java's file exceptions carry only the path ("/proc/foo"): add the OS's reason
            final IOException io = ex instanceof UncheckedIOException unchecked ? unchecked.getCause() : (IOException)ex;
            return new CliException(InputProblem.describe(io, "I/O error"), ExitStatus.ACCESS);
        }
        if (withoutModuleFlags(ex))
        {
            return new CliException("Chronicle Queue cannot start in this JVM: it lacks the module flags the faultline "
                + "launcher passes (docs/ARCHITECTURE.md, \"Java 17 flags\"); run ./faultline, or java -jar faultline.jar, "
                + "whose manifest carries them", ExitStatus.USAGE);
        }
        if (ex instanceof OutOfMemoryError)
        {
            return new CliException(String.format(Locale.ROOT, "out of heap (the JVM's %.1f GiB); give a smaller input or "
                + "size, or more heap: FAULTLINE_JAVA_OPTS=-Xmx%dg", Runtime.getRuntime().maxMemory() / (double)(1L << 30),
                2 * Math.max(1, (Runtime.getRuntime().maxMemory() + (1L << 30) - 1) >> 30)), ExitStatus.LIMIT);
        }
        // a bug: its class and first line, never a stack trace
        final String message = ex.getMessage() == null ? "" : ": " + ex.getMessage().lines().findFirst().orElse("");
        return new CliException("internal error (" + ex.getClass().getSimpleName() + message + "); this is a bug in "
            + "faultline", ExitStatus.INTERNAL);
    }

    /**
     * Whether {@code ex} is Chronicle Queue (or Agrona) failing to initialise because the JVM
     * does not open the JDK's internals to it: a JVM started with {@code java -cp}, not the
     * launcher. After a failed initialisation the class only says it could not be initialised.
     */
    private static boolean withoutModuleFlags(final Throwable ex)
    {
        for (Throwable t = ex; t != null; t = t.getCause())
        {
            final String message = String.valueOf(t.getMessage());
            if ((t instanceof LinkageError || t instanceof RuntimeException)
                && (message.contains("does not \"opens") || message.contains("does not \"exports")
                || message.contains("does not open") || message.contains("does not export")
                || (t instanceof NoClassDefFoundError && message.contains("net.openhft"))))
            {
                return true;
            }
        }
        return false;
    }

    /** picocli's parse errors as one line that names the problem and the fix. */
    private static String oneLine(final ParameterException ex)
    {
        final CommandLine failed = ex.getCommandLine();
        final String who = failed.getCommandSpec().qualifiedName();
        if (ex instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty())
        {
            final String arg = unmatched.getUnmatched().get(0);
            final List<String> close = unmatched.getSuggestions();
            final String hint = close.isEmpty() ? "" : " (did you mean " + String.join(" or ", close) + "?)";
            if (failed.getCommandSpec().parent() == null && !arg.startsWith("-"))
            {
                return "unknown command '" + arg + "'" + hint + "; known commands: " + commandNames(failed);
            }
            if (unmatched.isUnknownOption())
            {
                return "unknown option " + arg + hint + "; " + who + " --help lists the options";
            }
            return "unexpected argument '" + arg + "'; " + who + " --help shows the usage";
        }
        final ArgSpec arg = ex.getArgSpec();
        final String name = arg == null ? null
            : arg instanceof OptionSpec option ? option.longestName() : arg.paramLabel();
        if (ex instanceof CommandLine.MissingParameterException missing && !missing.getMissing().isEmpty()
            && missing.getMissing().get(0) instanceof OptionSpec option)
        {
            // picocli says "Missing required option" when the option is absent, and "Missing
            // required parameter for option" when it was given without its value
            return missing.getMessage() != null && missing.getMessage().startsWith("Missing required option")
                ? "missing " + option.shortestName() + " " + option.paramLabel() + "; " + who + " --help shows the usage"
                : option.longestName() + " needs a value";
        }
        if (name != null && ex.getCause() instanceof CommandLine.TypeConversionException conversion)
        {
            return name + ": " + conversion.getMessage();
        }
        final String message = ex.getMessage() == null ? ex.toString() : ex.getMessage();
        final Matcher unknown = UNKNOWN_SUBCOMMAND.matcher(message);
        if (unknown.matches())
        {
            // picocli's help command, asked about a word it does not know
            return "unknown command '" + unknown.group(1) + "'; known commands: "
                + commandNames(failed.getCommandSpec().root().commandLine());
        }
        return message.lines().findFirst().orElse(message);
    }

    private static final Pattern UNKNOWN_SUBCOMMAND = Pattern.compile("Unknown subcommand '(.*)'\\.");

    private static String commandNames(final CommandLine commandLine)
    {
        return String.join(", ", commandLine.getSubcommands().keySet());
    }
}
