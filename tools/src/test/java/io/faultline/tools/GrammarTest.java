package io.faultline.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.sim.trace.FaultlineTraces;
import io.faultline.tracer.Recorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command reads its arguments the same way, and bad ones end in one line and exit status 2. */
class GrammarTest
{
    private static final String[] COMMANDS = {"record", "info", "dump", "export", "sql", "simulate", "mrc", "monitor", "report",
        "pack", "unpack", "upgrade", "completion"};

    @TempDir
    Path tmp;

    @Test
    void helpTextFormatsCleanly()
    {
        // picocli formats descriptions with String.format and warns on System.err about a bare %
        final PrintStream saved = System.err;
        final ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try
        {
            for (final String[] args : new String[][] {{"monitor", "--help"}, {"report", "accuracy", "--help"},
                {"report", "heats", "--help"}, {"record", "--help"}, {"simulate", "--help"}})
            {
                assertEquals(0, CommandRun.of(args).status(), String.join(" ", args));
            }
        }
        finally
        {
            System.setErr(saved);
        }
        assertEquals("", warnings.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyCommandHasHelpThatStartsWithItsUsage()
    {
        for (final String command : COMMANDS)
        {
            for (final String help : new String[] {"--help", "-h"})
            {
                final CommandRun run = CommandRun.of(command, help);
                assertEquals(0, run.status(), run.toString());
                assertTrue(run.out().startsWith("usage: faultline " + command), run.toString());
                assertEquals("", run.err());
            }
            final CommandRun viaHelp = CommandRun.of("help", command);
            assertTrue(viaHelp.out().startsWith("usage: faultline " + command), viaHelp.toString());
        }
        final CommandRun top = CommandRun.of("--help");
        assertEquals(0, top.status());
        for (final String command : COMMANDS)
        {
            assertTrue(top.out().contains("\n  " + command + " "), command + " listed in: " + top.out());
        }
    }

    @Test
    void versionIsTheMavenProjectVersionAndTheOneTracesCarry() throws IOException
    {
        final Matcher parent = Pattern.compile("<parent>.*?<version>([^<]+)</version>")
            .matcher(Files.readString(Path.of("pom.xml")));
        assertTrue(parent.find(), "tools/pom.xml names its parent's version");
        final CommandRun run = CommandRun.of("--version");
        assertEquals(0, run.status(), run.toString());
        assertEquals("faultline " + parent.group(1) + System.lineSeparator(), run.out());
        assertEquals(parent.group(1), Recorder.VERSION, "the faultline_version of a trace's header");
    }

    @Test
    void optionValuesMayFollowAfterASpaceOrAnEqualsSign() throws IOException
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096,
            new long[] {1, 11, 0x1000, 0x2000}, new long[] {2, 12, 0x3000});
        final CommandRun apart = CommandRun.of("dump", "--format", "csv", "--pid", "2", dir.toString());
        final CommandRun joined = CommandRun.of("dump", "--format=csv", "--pid=2", dir.toString());
        assertEquals("seq,time_ns,pid,tid,kind,address,tag\n2,20,2,12,r,0x3000,\n", apart.out(), apart.toString());
        assertEquals(apart.out(), joined.out());
    }

    @Test
    void dumpKeepsTheReferencesOfATimeWindow() throws IOException
    {
        // FaultlineTraces stamps reference seq at seq * 10 ns.
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {1, 11, 0x1000, 0x2000, 0x3000, 0x4000});
        final CommandRun run = CommandRun.of("dump", "--format", "csv", "--from", "10ns", "--until=0.03us", dir.toString());
        assertEquals("seq,time_ns,pid,tid,kind,address,tag\n1,10,1,11,r,0x2000,\n2,20,1,11,r,0x3000,\n", run.out(),
            run.toString());
    }

    @Test
    void unknownWordsListTheCloseOnes()
    {
        assertOneLine("faultline: unknown command 'simulat' (did you mean simulate?); known commands: record, info, dump, export, "
            + "sql, simulate, mrc, sweep, monitor, report, pack, unpack, upgrade, completion, help", "simulat");
        assertOneLine("faultline: unknown command 'simulat'; known commands: record, info, dump, export, sql, simulate, mrc, "
            + "sweep, monitor, report, pack, unpack, upgrade, completion, help", "help", "simulat");
        assertOneLine("faultline dump: unknown option --formt (did you mean --format?); faultline dump --help lists "
            + "the options", "dump", "--formt", "csv", "t");
        assertOneLine("faultline info: unknown option --xyzzy; faultline info --help lists the options",
            "info", "--xyzzy", "t");
    }

    @Test
    void badValuesNameTheOptionAndTheFix()
    {
        assertOneLine("faultline dump: --pid: 'one' is not a whole number", "dump", "--pid", "one", "t");
        assertOneLine("faultline dump: --pid must be at least 0: -1", "dump", "--pid=-1", "t");
        assertOneLine("faultline dump: --until: '5' is not a duration; give a number with ns, us, ms, s or m "
            + "(250ms, 1.5s)", "dump", "--until", "5", "t");
        assertOneLine("faultline dump: --tid needs a value", "dump", "t", "--tid");
        assertOneLine("faultline record: --ring-size: '4X' is not a size; give a whole number, or bytes with K, M, G, "
            + "KiB, MiB or GiB (4M)", "record", "--ring-size", "4X", "-o", "t", "--", "true");
        assertOneLine("faultline record: --ring-size must be a power of two from 64K to 1G: 100000",
            "record", "--ring-size", "100000", "-o", "t", "--", "true");
        assertOneLine("faultline record: --ring-size 1G for each of --max-processes 64 is more shared memory than the "
            + "recorder maps (2 GiB); use --ring-size 16M or --max-processes 1", "record", "--ring-size", "1G", "-o", "t",
            "--", "true");
        assertOneLine("faultline record: --chunk-records must be between 1 and 65536: 0",
            "record", "--chunk-records=0", "-o", "t", "--", "true");
        assertOneLine("faultline record: --evms: '1K' is not a whole number of 4096-byte pages; give a multiple of the "
            + "page size", "record", "--evms", "1K", "-o", "t", "--", "true");
        assertOneLine("faultline record: --evms must be 16 to 16777216 pages (one x86 instruction can need several pages "
            + "enabled at once: operands that straddle pages, string moves, gathers, the stack): 0", "record", "--evms",
            "0K", "-o", "t", "--", "true");
    }

    /**
     * What the lists of commands say of each (--help's, report --help's) is a whole sentence; and
     * the top level, which lists commands without building
     * them, lists what each built command says of itself.
     */
    @Test
    void everyCommandListedWithAWholeSentence()
    {
        final PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        final picocli.CommandLine whole = Main.commandLine(sink, sink, false, Main.ALL);
        final picocli.CommandLine listed = Main.commandLine(sink, sink, false, null);
        final java.util.ArrayDeque<picocli.CommandLine> todo = new java.util.ArrayDeque<>(whole.getSubcommands().values());
        int commands = 0;
        while (!todo.isEmpty())
        {
            final picocli.CommandLine command = todo.pop();
            todo.addAll(command.getSubcommands().values());
            final String name = command.getCommandSpec().qualifiedName();
            final String first = summary(command);
            assertTrue(first.matches("[A-Z].*\\.") && !first.contains("%n"), name + ": '" + first + "'");
            commands++;
        }
        assertEquals(22, commands, "14 commands, help, and report's 7");
        for (final java.util.Map.Entry<String, picocli.CommandLine> e : whole.getSubcommands().entrySet())
        {
            assertEquals(summary(e.getValue()), summary(listed.getSubcommands().get(e.getKey())), e.getKey());
        }
        assertEquals(whole.getSubcommands().keySet(), listed.getSubcommands().keySet());
    }

    /** --help, -h and help answer without picocli what picocli renders for the same command line. */
    @Test
    void theTopLevelHelpIsPicoclis()
    {
        final ByteArrayOutputStream rendered = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(rendered, true, StandardCharsets.UTF_8);
        Main.commandLine(out, out, false, null).usage(out);
        assertEquals(rendered.toString(StandardCharsets.UTF_8), Main.topLevelHelp());
        for (final String help : new String[] {"--help", "-h", "help"})
        {
            final CommandRun run = CommandRun.of(help);
            assertEquals(0, run.status(), run.toString());
            assertEquals(Main.topLevelHelp(), run.out());
        }
        final CommandRun none = CommandRun.of();
        assertEquals(2, none.status());
        assertEquals("faultline: missing command; known commands: record, info, dump, export, sql, simulate, mrc, sweep, "
            + "monitor, report, pack, unpack, upgrade, completion, help (faultline help shows what each does)"
            + System.lineSeparator(), none.err());
    }

    /** What picocli lists for a command: its header if it has one (help's), else its description's first line. */
    private static String summary(final picocli.CommandLine command)
    {
        final picocli.CommandLine.Model.UsageMessageSpec usage = command.getCommandSpec().usageMessage();
        return usage.header().length > 0 ? usage.header()[0] : usage.description()[0];
    }

    /**
     * Every option with a range refuses a value past either end with the range it states in its
     * help: the error says it, and the option's help says it in the same words.
     */
    @Test
    void rangesInHelpAreTheRangesEnforced()
    {
        final String evms = "16 to 16777216 pages (one x86 instruction can need several pages enabled at once: operands "
            + "that straddle pages, string moves, gathers, the stack)";
        // command, option, a value below, a value above (null: none), the range as the error says it, as help says it
        final String[][] ranges = {
            {"record", "--evms", "15", "16777217", "--evms must be " + evms, evms},
            {"record", "--chunk-records", "0", "65537", "--chunk-records must be between 1 and 65536", "1 to 65536"},
            {"record", "--max-processes", "0", "1025", "--max-processes must be between 1 and 1024", "1 to 1024"},
            {"record", "--stacks", "0", "65", "--stacks must be between 1 and 64", "1 to 64"},
            {"record", "--max-threads", "-1", "4097", "--max-threads must be between 0 and 4096", "0 to 4096"},
            {"record", "--ring-size", "32K", "2G", "--ring-size must be a power of two from 64K to 1G",
                "a power of two from 64K to 1G"},
            {"record", "--lead", "0", "512", "--lead must be at least 1 and less than --evms", "at least 1 and less than --evms"},
            {"record", "--interval", "999us", null, "--interval must be at least 1 ms", "at least 1 ms"},
            {"report callsites", "--depth", "0", "65537", "--depth must be between 1 and 65536", "1 to 65536"},
            {"report callsites", "--top", "-1", null, "--top must be at least 0", "at least 0"},
            {"simulate", "--threads", "0", null, "--threads must be at least 1", "at least 1"},
            {"simulate", "--page-size", "0", null, "--page-size must be at least 1", "at least 1"},
            {"mrc", "--sample", "0", "1.5", "--sample takes a rate in (0, 1]", "in (0, 1]"},
        };
        for (final String[] r : ranges)
        {
            final String[] words = r[0].split(" ");
            final String help = helpOf(words, r[1]);
            assertTrue(help.contains(r[5]), r[0] + " " + r[1] + "'s help states " + r[5] + ": " + help);
            for (final String value : new String[] {r[2], r[3]})
            {
                if (value == null)
                {
                    continue;
                }
                final java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(words));
                args.addAll(switch (r[0])
                {
                    case "record" -> r[1].equals("--lead") ? java.util.List.of("--policy", "segq", r[1], value, "-o",
                        tmp.resolve("t").toString(), "--", "true") : r[1].equals("--interval")
                        ? java.util.List.of("--mode", "moca", r[1], value, "-o", tmp.resolve("t").toString(), "--", "true")
                        : java.util.List.of(r[1], value, "-o", tmp.resolve("t").toString(), "--", "true");
                    case "simulate" -> java.util.List.of("--policies", "lru", "--sizes", "2", r[1], value, "t");
                    default -> java.util.List.of(r[1], value, "t");
                });
                final CommandRun run = CommandRun.of(args.toArray(new String[0]));
                assertEquals(2, run.status(), run.toString());
                assertTrue(run.err().startsWith("faultline " + r[0] + ": " + r[4]), r[4] + ": " + run);
            }
        }
    }

    /** The lines of {@code option}'s entry in the help of {@code command}, joined into one. */
    private static String helpOf(final String[] command, final String option)
    {
        final java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(command));
        args.add("--help");
        final String[] lines = CommandRun.of(args.toArray(new String[0])).out().split("\n");
        final StringBuilder entry = new StringBuilder();
        for (int i = 0; i < lines.length; i++)
        {
            if (lines[i].matches(" +(-\\w, )?" + option + "[= ].*"))
            {
                entry.append(lines[i].strip());
                for (int j = i + 1; j < lines.length && lines[j].matches(" {10,}\\S.*"); j++)
                {
                    entry.append(' ').append(lines[j].strip());
                }
            }
        }
        return entry.toString();
    }

    @Test
    void completionScriptCoversEveryCommandAndOption()
    {
        final CommandRun run = CommandRun.of("completion");
        assertEquals(0, run.status(), run.toString());
        assertTrue(run.out().startsWith("#!/usr/bin/env bash"), run.out().substring(0, 100));
        assertTrue(run.out().contains("complete -F _complete_faultline"), "registers the function");
        for (final String word : new String[] {"record", "simulate", "--policies", "--ring-size", "--max-size",
            "lcs-oracle", "s3fifo"})
        {
            assertTrue(run.out().contains(word), word);
        }
    }

    private static void assertOneLine(final String expected, final String... args)
    {
        final CommandRun run = CommandRun.of(args);
        assertEquals(2, run.status(), run.toString());
        assertEquals(expected + System.lineSeparator(), run.err());
        assertEquals("", run.out());
    }
}
