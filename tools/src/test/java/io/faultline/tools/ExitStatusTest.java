package io.faultline.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.faultline.format.TraceLayout;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One exit status per class of error (README, "Exit status"), each one line. */
class ExitStatusTest
{
    @TempDir
    Path tmp;

    private static void assertOneLine(final int status, final String line, final String... args)
    {
        final CommandRun run = CommandRun.of(args);
        assertEquals(status, run.status(), run.toString());
        assertEquals(1, run.errLines().length, run.toString());
        assertEquals(line, run.err().strip(), run.toString());
    }

    private Path trace() throws IOException
    {
        return FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {1, 11, 0x0000, 0x1000});
    }

    @Test
    void usage() throws IOException
    {
        assertOneLine(2, "faultline simulate: --sizes: 'big' is not a size; give a whole number, or bytes with K, M, G, "
            + "KiB, MiB or GiB (4M)", "simulate", "--policies", "lru", "--sizes", "big", trace().toString());
        Files.writeString(tmp.resolve("f"), "1\n");
        assertOneLine(2, "faultline info: no trace at " + tmp.resolve("f") + ": it is a file, neither a trace directory "
            + "nor a packed trace; give a directory written by faultline record, or a file written by faultline pack", "info",
            tmp.resolve("f").toString());
    }

    @Test
    void aFileThatIsNotThereOrCannotBeWritten() throws IOException
    {
        assertOneLine(3, "faultline info: no trace at " + tmp.resolve("none") + ": no such file or directory", "info",
            tmp.resolve("none").toString());
        assertOneLine(3, "faultline simulate: no such trace: " + tmp.resolve("none.txt"), "simulate", "--format", "lirs",
            "--policies", "lru", "--sizes", "2", tmp.resolve("none.txt").toString());
        final CommandRun run = CommandRun.of("simulate", "--policies", "lru", "--sizes", "2", "--csv", "/proc/none/x.csv",
            trace().toString());
        assertEquals(3, run.status(), run.toString());
        assertEquals("faultline simulate: /proc/none/x.csv: no such file or directory", run.lastErrLine(), run.toString());
    }

    @Test
    void aCorruptInput() throws IOException
    {
        final Path trace = trace();
        Files.writeString(trace.resolve(TraceLayout.HEADER_FILE), "garbage\u0000=\\u12");
        final CommandRun run = CommandRun.of("info", trace.toString());
        assertEquals(4, run.status(), run.toString());
        assertTrue(run.err().startsWith("faultline info: corrupt trace header "), run.toString());
        final Path lines = Files.writeString(tmp.resolve("keys.txt"), "1\nx\n");
        final CommandRun lirs = CommandRun.of("simulate", "--format", "lirs", "--policies", "lru", "--sizes", "2",
            lines.toString());
        assertEquals(4, lirs.status(), lirs.toString());
        assertTrue(lirs.lastErrLine().startsWith("faultline simulate: " + lines + ":2: "), lirs.toString());
    }

    @Test
    void anInternalErrorNamesItselfInOneLine()
    {
        final CliException cli = Main.classify(new IllegalStateException("two\nlines"));
        assertEquals(70, cli.exitCode());
        assertEquals("internal error (IllegalStateException: two); this is a bug in faultline", cli.getMessage());
        assertEquals(5, Main.classify(new OutOfMemoryError("Java heap space")).exitCode());
    }

    @Test
    void helpListsTheStatuses()
    {
        final CommandRun run = CommandRun.of("--help");
        final String help = run.out().replaceAll("\\s+", " ");
        assertTrue(help.contains("Exit status: 0 done; 1 record: the recording stopped early and the program exited 0; "
            + "2 usage"), help);
        assertTrue(help.contains("5 a limit") && help.contains("70 an internal error"), help);
    }
}
