package io.faultline.capture;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each bad input gets one line on stderr that names the problem, and a non-zero exit. */
class BadInputTest
{
    @TempDir
    Path tmp;

    private static void assertOneLineError(final Faultline.Result result, final String expected)
    {
        assertNotEquals(0, result.status(), result.describe());
        final String err = result.err().strip();
        assertEquals(1, err.lines().count(), "one line: " + result.describe());
        assertTrue(err.contains(expected), "'" + expected + "' in: " + err);
    }

    private static void assertNoTrace(final Path dir) throws Exception
    {
        if (Files.exists(dir.resolve(TraceLayout.HEADER_FILE)))
        {
            assertFalse(TraceHeader.read(dir.resolve(TraceLayout.HEADER_FILE)).isComplete(), "no complete trace in " + dir);
        }
    }

    @Test
    void missingAndUnknownCommands() throws Exception
    {
        assertOneLineError(Faultline.run(), "missing command");
        assertOneLineError(Faultline.run("recrod"), "unknown command 'recrod'");
    }

    @Test
    void unknownOptionAndMissingParts() throws Exception
    {
        assertOneLineError(Faultline.run("record", "--evmz", "4", "-o", tmp.resolve("t").toString(), "--", "true"),
            "unknown option --evmz");
        assertOneLineError(Faultline.run("record", "-o", tmp.resolve("t").toString()), "missing program");
        assertOneLineError(Faultline.run("record", "--", "true"), "missing -o");
        assertOneLineError(Faultline.run("record", "--evms", "0", "-o", tmp.resolve("t").toString(), "--", "true"),
            "--evms must be 16 to 16777216 pages (one x86 instruction can need several pages enabled at once: "
            + "operands that straddle pages, string moves, gathers, the stack): 0");
        assertOneLineError(Faultline.run("record", "--evms", "4", "-o", tmp.resolve("t").toString(), "--", "true"),
            "--evms must be 16 to 16777216 pages (one x86 instruction can need several pages enabled at once: "
            + "operands that straddle pages, string moves, gathers, the stack): 4");
        assertOneLineError(Faultline.run("record", "--scope", "some", "-o", tmp.resolve("t").toString(), "--", "true"),
            "unknown scope 'some'");
        assertOneLineError(Faultline.run("record", "--max-processes", "0", "-o", tmp.resolve("t").toString(), "--",
            "true"), "--max-processes must be between 1 and 1024: 0");
        assertOneLineError(Faultline.run("dump", "--format", "xml", tmp.toString()), "unknown dump format 'xml'");
        final String out = tmp.resolve("t").toString();
        assertOneLineError(Faultline.run("record", "--policy", "lru", "-o", out, "--", "true"),
            "unknown EVMS policy 'lru'; use --policy fifo, segq or clock");
        assertOneLineError(Faultline.run("record", "--lead", "4", "-o", out, "--", "true"),
            "--lead and --trail apply to --policy segq or clock, not fifo");
        assertOneLineError(Faultline.run("record", "--policy", "segq", "--evms", "16", "--lead", "16", "-o", out, "--", "true"),
            "--lead must be at least 1 and less than --evms (16), which counts both segments: 16");
        assertOneLineError(Faultline.run("record", "--policy", "clock", "--trail", "fifo", "-o", out, "--", "true"),
            "--policy clock is segq with --trail clock; use --policy segq --trail fifo");
        assertOneLineError(Faultline.run("record", "--policy", "segq", "--trail", "lru", "-o", out, "--", "true"),
            "unknown trailing segment policy 'lru'; use --trail fifo or clock");
    }

    @Test
    void programThatDoesNotExist() throws Exception
    {
        final Path out = tmp.resolve("t");
        assertOneLineError(Faultline.run("record", "-o", out.toString(), "--", "no-such-program-xyz"),
            "no-such-program-xyz was not found on PATH");
        assertOneLineError(Faultline.run("record", "-o", out.toString(), "--", "/nonexistent/prog"),
            "/nonexistent/prog does not exist");
        assertFalse(Files.exists(out));
    }

    @Test
    void anAgentPathThatDoesNotExist() throws Exception
    {
        for (final String command : List.of("record", "monitor"))
        {
            final ProcessBuilder builder = Faultline.builder(List.of(command, "-o", tmp.resolve(command).toString(), "--",
                "true"));
            builder.environment().put("FAULTLINE_AGENT", tmp.resolve("nowhere/libfaultline.so").toString());
            final Faultline.Result result = Faultline.finish(builder, 60);
            assertEquals(3, result.status(), result.describe());
            assertOneLineError(result, "FAULTLINE_AGENT names " + tmp.resolve("nowhere/libfaultline.so")
                + ", which does not exist; point it at a built libfaultline.so or unset it");
            assertFalse(result.err().contains("Exception"), result.describe());
        }
    }

    @Test
    void outputThatIsNotUsable() throws Exception
    {
        final Path file = Files.writeString(tmp.resolve("file"), "x");
        assertOneLineError(Faultline.run("record", "-o", file.resolve("sub").toString(), "--", "true"), "is not a directory");
        assertOneLineError(Faultline.run("record", "-o", file.toString(), "--", "true"), "is not a directory");
        final Path trace = tmp.resolve("trace");
        assertEquals(0, Faultline.run("record", "-q", "-o", trace.toString(), "--", "true").status());
        assertOneLineError(Faultline.run("record", "-o", trace.toString(), "--", "true"), "already holds a trace");
        assertTrue(TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE)).isComplete(), "the old trace is untouched");
    }

    @Test
    void forceReplacesATraceAndNothingElse() throws Exception
    {
        final Path trace = tmp.resolve("trace");
        assertEquals(0, Faultline.run("record", "-q", "-o", trace.toString(), "--", "true").status());
        final Faultline.Result again = Faultline.run("record", "-q", "--force", "-o", trace.toString(), "--", "sh", "-c",
            "exit 3");
        assertEquals(3, again.status(), again.describe());
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertTrue(header.isComplete() && header.get(TraceHeader.COMMAND).startsWith("sh "), "the new trace: " + header.values());
        // a trace with a file of the user's beside it is not a trace: nothing is deleted
        final Path notes = Files.writeString(trace.resolve("notes.txt"), "mine");
        assertOneLineError(Faultline.run("record", "--force", "-o", trace.toString(), "--", "true"),
            "output " + trace + " is not a trace (it holds notes.txt, which no trace has), and --force replaces only a "
            + "trace; choose another -o");
        assertTrue(Files.exists(notes) && TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE)).isComplete());
    }

    @Test
    void staticallyLinkedProgramCannotLoadTheAgent() throws Exception
    {
        final Path program = Workloads.build("churn", "-static");
        final Path out = tmp.resolve("t");
        assertOneLineError(Faultline.run("record", "-o", out.toString(), "--", program.toString(), "1"),
            "is statically linked");
        assertNoTrace(out);
    }

    @Test
    void setuidProgramOfAnotherUserCannotLoadTheAgent() throws Exception
    {
        final Path program = Files.copy(Workloads.build("churn"), tmp.resolve("churn-setuid"));
        final int status = new ProcessBuilder("sh", "-c", "chown 65534 '" + program + "' && chmod 4755 '" + program + "'")
            .inheritIO().start().waitFor();
        assertEquals(0, status, "chown/chmod (the tests run as root)");
        assertOneLineError(Faultline.run("record", "-o", tmp.resolve("t").toString(), "--", program.toString(), "1"),
            "is setuid");
    }

    @Test
    void scriptWhoseInterpreterIsStaticNeverLoadsTheAgentAndNoTraceIsKept() throws Exception
    {
        // The preflight check passes (a script is not ELF), but the kernel runs a static
        // interpreter: the agent never loads, which the recorder finds out at the end.
        final Path script = tmp.resolve("script");
        Files.writeString(script, "#!" + Workloads.build("churn", "-static") + "\n");
        script.toFile().setExecutable(true);
        final Path out = tmp.resolve("t");
        assertOneLineError(Faultline.run("record", "-o", out.toString(), "--", script.toString()),
            "never loaded the agent");
        assertNoTrace(out);
    }

    @Test
    void userWithoutUserfaultfdAccessWhoAsksForItIsToldHowToGrantIt() throws Exception
    {
        // Run the recorder as nobody: /dev/userfaultfd is root's and vm.unprivileged_userfaultfd
        // is 0 here, so the agent could not handle kernel-mode faults. Asked for by --engine uffd,
        // that is an error (without --engine, record takes the sigbus engine: ExactnessTest).
        final Path out = Files.createDirectories(tmp.resolve("nobody")); // before AsNobody opens tmp up
        final AsNobody nobody = AsNobody.in(tmp);
        final ProcessBuilder builder = nobody.builder(List.of("record", "--engine", "uffd", "-o", out.resolve("t").toString(),
            "--", "true"));
        final Faultline.Result result = Faultline.exec(builder.command(), 120, builder.environment());
        assertNotEquals(0, result.status(), result.describe());
        final List<String> lines = AsNobody.errLines(result);
        assertEquals(1, lines.size(), result.describe());
        assertTrue(lines.get(0).contains("no permission to use userfaultfd")
            && lines.get(0).contains("/dev/userfaultfd") && lines.get(0).contains("vm.unprivileged_userfaultfd=1"),
            result.describe());
        assertFalse(Files.exists(out.resolve("t")));
    }

    @Test
    void corruptAndTruncatedTracesAreRefusedByInfoAndDump() throws Exception
    {
        final Path trace = tmp.resolve("trace");
        final Faultline.Result recorded = Faultline.run("record", "-q", "--evms", "16", "-o", trace.toString(), "--",
            Workloads.build("churn").toString(), "1");
        assertEquals(0, recorded.status(), recorded.describe());
        assertEquals(0, Faultline.run("info", trace.toString()).status());

        assertOneLineError(Faultline.run("info", tmp.resolve("nothing").toString()), "no trace at");
        assertOneLineError(Faultline.run("dump", tmp.toString()), "is not a faultline trace");

        final Path header = trace.resolve(TraceLayout.HEADER_FILE);
        final TraceHeader original = TraceHeader.read(header);
        TraceHeader.read(header).put(TraceHeader.REFERENCES, original.longValue(TraceHeader.REFERENCES) + 5).write(header);
        assertOneLineError(Faultline.run("info", trace.toString()), "truncated trace");
        assertOneLineError(Faultline.run("dump", trace.toString()), "truncated trace");
        original.write(header);

        Files.writeString(header, "garbage\u0000=\\u12");
        assertOneLineError(Faultline.run("info", trace.toString()), "trace header");
        original.write(header);

        try (Stream<Path> files = Files.list(trace.resolve(TraceLayout.QUEUE_DIR)))
        {
            for (final Path cq4 : files.filter(p -> p.toString().endsWith(".cq4")).toList())
            {
                try (RandomAccessFile raf = new RandomAccessFile(cq4.toFile(), "rw"))
                {
                    raf.setLength(Math.min(raf.length(), 3000));
                }
            }
        }
        final Faultline.Result truncated = Faultline.run(List.of("dump", trace.toString()), 60);
        assertNotEquals(0, truncated.status(), truncated.describe());
        assertEquals(1, truncated.err().strip().lines().count(), truncated.describe());
    }

    /** More process images than slots: the rest run untraced and intact, and each says how to fix it. */
    @Test
    void processesBeyondMaxProcessesRunUntracedAndSaySo() throws Exception
    {
        final Path out = tmp.resolve("few-slots");
        final Faultline.Result result = Faultline.run(List.of("record", "-q", "--max-processes", "1", "-o", out.toString(),
            "--", "sh", "-c", "/bin/echo one; /bin/echo two"), 60);
        assertEquals(0, result.status(), result.describe());
        assertEquals("one\ntwo\n", result.out());
        assertTrue(result.err().contains("all 1 process slots are taken"), result.describe());
        assertTrue(result.err().contains("record with a larger --max-processes"), result.describe());
        assertEquals("1", TraceHeader.read(out.resolve(TraceLayout.HEADER_FILE)).get(TraceHeader.PROCESSES));
    }
}
