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
    private static final String[] COMMANDS = {"record", "info", "dump", "export", "simulate", "mrc", "monitor", "report",
        "pack", "unpack", "completion"};

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
            + "simulate, mrc, sweep, monitor, report, pack, unpack, completion, help", "simulat");
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
