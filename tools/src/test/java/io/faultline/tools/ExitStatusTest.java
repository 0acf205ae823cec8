package io.faultline.tools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.faultline.format.TraceLayout;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One exit status per class of error (README, "Exit status"), each one line. */
class ExitStatusTest
{
    private static final Path ROOT = root();

    @TempDir
    Path tmp;

    private static Path root()
    {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isExecutable(dir.resolve("faultline")))
        {
            dir = dir.getParent();
        }
        if (dir == null)
        {
            throw new IllegalStateException("no ./faultline launcher above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** The statuses of README.md's table, each with its meaning. */
    private static Map<Integer, String> readmeTable() throws IOException
    {
        final Map<Integer, String> table = new TreeMap<>();
        final Matcher row = Pattern.compile("(?m)^  \\| (\\d+) \\| (.+) \\|$")
            .matcher(Files.readString(ROOT.resolve("README.md")));
        while (row.find())
        {
            table.put(Integer.parseInt(row.group(1)), row.group(2));
        }
        return table;
    }

    /**
     * The launcher, as a user runs it, on this build's classes; status and standard error.
     * {@code javaOptions} go into FAULTLINE_JAVA_OPTS.
     */
    private static CommandRun launch(final String javaOptions, final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(ROOT.resolve("faultline").toString()));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(
            new java.io.File("/dev/null")));
        final String classPath = System.getProperty("surefire.test.class.path");
        builder.environment().put("FAULTLINE_CLASSPATH", classPath == null || classPath.isEmpty()
            ? System.getProperty("java.class.path") : classPath);
        builder.environment().remove("LD_PRELOAD");
        if (javaOptions != null)
        {
            builder.environment().put("FAULTLINE_JAVA_OPTS", javaOptions);
        }
        final Process process = builder.start();
        final byte[] out;
        final byte[] err;
        try (InputStream stdout = process.getInputStream(); InputStream stderr = process.getErrorStream())
        {
            out = stdout.readAllBytes();
            err = stderr.readAllBytes();
        }
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), String.join(" ", command));
        return new CommandRun(process.exitValue(), new String(out, StandardCharsets.UTF_8),
            new String(err, StandardCharsets.UTF_8));
    }

    /**
     * Each status of README.md's table, given by a command of its class, with one line on
     * stderr; the table lists no status this test does not give, and --help names each.
     */
    @Test
    void everyStatusOfTheReadmesTable() throws Exception
    {
        final Map<Integer, IntFunction<CommandRun>> cases = new TreeMap<>();
        final Path missing = tmp.resolve("none");
        cases.put(0, status -> CommandRun.of("dump", unchecked(this::trace).toString()));
        // the program removes the trace's directory once the recording wrote to it: the trace is gone
        final Path removed = tmp.resolve("removed");
        cases.put(1, status -> unchecked(() -> launch(null, "record", "-q", "-o", removed.toString(), "--", "sh", "-c",
            "sleep 1; rm -rf " + removed + "; sleep 0.2")));
        cases.put(2, status -> CommandRun.of("record", "--evms", "4", "-o", missing.toString(), "--", "true"));
        cases.put(3, status -> CommandRun.of("record", "-o", missing.toString(), "--", "no-such-program-xyz"));
        cases.put(4, status ->
        {
            final Path trace = unchecked(() -> FaultlineTraces.write(tmp.resolve("corrupt"), 4096, new long[] {1, 11, 0}));
            unchecked(() -> Files.writeString(trace.resolve(TraceLayout.HEADER_FILE), "garbage\u0000=\\u12"));
            return CommandRun.of("info", trace.toString());
        });
        // 200,000 distinct pages: ARC at 150,000 keeps 300,001 slots, twice at once, beyond 48 MB of heap
        final Path keys = tmp.resolve("keys.txt");
        cases.put(5, status ->
        {
            unchecked(() -> Files.writeString(keys, LongStream.range(0, 200_000).mapToObj(Long::toString)
                .collect(Collectors.joining("\n", "", "\n"))));
            return unchecked(() -> launch("-Xmx48m", "simulate", "--format", "lirs", "--policies", "arc", "--sizes",
                "150000,150001", "--threads", "2", keys.toString()));
        });
        // no command fails so on purpose: the classification of what a command did not expect
        cases.put(70, status -> new CommandRun(Main.classify(new IllegalStateException("unexpected")).exitCode(), "",
            "faultline: " + Main.classify(new IllegalStateException("unexpected")).getMessage() + "\n"));

        final Map<Integer, String> table = readmeTable();
        assertEquals(cases.keySet(), table.keySet(), "README.md's exit statuses: " + table);
        final String help = CommandRun.of("--help").out().replaceAll("\\s+", " ");
        for (final Map.Entry<Integer, IntFunction<CommandRun>> c : cases.entrySet())
        {
            final CommandRun run = c.getValue().apply(c.getKey());
            assertEquals((int)c.getKey(), run.status(), table.get(c.getKey()) + ": " + run);
            // one line says what went wrong, last, after what a command reports as it goes (simulate's reading)
            assertEquals(c.getKey() == 0 ? 0 : 1, run.err().lines().filter(line -> line.startsWith("faultline")).count(),
                "one line for " + c.getKey() + ": " + run);
            assertTrue(c.getKey() == 0 || run.lastErrLine().startsWith("faultline"), run.toString());
            assertTrue(help.contains(" " + c.getKey() + " ") || help.contains(": " + c.getKey() + " "),
                "--help names " + c.getKey() + ": " + help);
        }
    }

    @FunctionalInterface
    private interface Step<T>
    {
        T get() throws Exception;
    }

    private static <T> T unchecked(final Step<T> step)
    {
        try
        {
            return step.get();
        }
        catch (final RuntimeException ex)
        {
            throw ex;
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

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
        assertTrue(help.contains("Exit status: 0 done; 1 record: the recording stopped early and the program exited 0, "
            + "sweep: a task failed; 2 usage"), help);
        assertTrue(help.contains("5 a limit") && help.contains("70 an internal error"), help);
    }
}
