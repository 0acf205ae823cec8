package io.faultline.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Exit statuses, signals, a dying recorder: the program's fate is its own, and the trace completes. */
class LifecycleTest
{
    @TempDir
    Path tmp;

    /** The engine of the running test ({@link BothEngines}). */
    private String engine = "uffd";

    @BothEngines
    void exitStatusOfTheProgramIsTheRecordersAndTheTraceCompletes(final String engine) throws Exception
    {
        this.engine = engine;
        final Path trace = tmp.resolve("exit");
        final Faultline.Result result = Faultline.run("record", "-q", "--engine", engine, "-o", trace.toString(), "--",
            Workloads.build("churn").toString(), "1", "exit", "7");
        assertEquals(7, result.status(), result.describe());
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertTrue(header.isComplete());
        assertEquals("7", header.get(TraceHeader.EXIT_STATUS));
        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        assertTrue(info.out().contains("exit status 7"), info.out());
    }

    @BothEngines
    void programKilledBySignalGives128PlusNAndACompleteTrace(final String engine) throws Exception
    {
        this.engine = engine;
        final Path trace = tmp.resolve("killed");
        final Faultline.Result result = Faultline.run("record", "-q", "--engine", engine, "-o", trace.toString(), "--",
            Workloads.build("churn").toString(), "1", "signal", "11");
        assertEquals(128 + 11, result.status(), result.describe());
        assertTrue(result.out().contains("churn rounds=1"), "output written before the crash is kept");
        assertTrue(Traces.read(trace).refs.size() > 0);
    }

    @BothEngines
    void sigtermIsForwardedToTheProgram(final String engine) throws Exception
    {
        this.engine = engine;
        final Path trace = tmp.resolve("term");
        final Path out = tmp.resolve("out.txt");
        final Process recorder = Faultline.builder(List.of("record", "-q", "--engine", engine, "-o", trace.toString(), "--",
            Workloads.build("churn").toString(), "1", "sleep", "60"))
            .redirectOutput(out.toFile()).redirectErrorStream(true).start();
        waitForFile(out, "churn rounds=1");
        final List<Path> shm = shmFilesOf(recorder.pid());
        assertEquals(1, shm.size(), "one shared-memory file per recording: " + shm);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(shm.get(0))),
            "the rings hold every address the program touches: only its user may read them");
        // Signal only the recorder (as `kill PID` would): it must pass SIGTERM on to the program.
        recorder.toHandle().destroy();
        assertTrue(recorder.waitFor(60, TimeUnit.SECONDS), "the recording ends once the program does");
        assertEquals(128 + 15, recorder.exitValue(), Files.readString(out));
        assertTrue(TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE)).isComplete());
        assertEquals(List.of(), shmFilesOf(recorder.pid()), "the recorder deletes its shared memory");
    }

    /**
     * A program that execs after its recorder was killed: the agent in the new image finds the
     * shared memory removed (the agent of the image that saw the recorder die removes it) and
     * runs untraced without a word. It used to print "faultline agent: cannot open
     * /dev/shm/faultline-..." on the program's stderr, which is the program's output.
     */
    @Test
    void anImageExecdAfterTheRecorderDiedRunsWithItsOwnOutputOnly() throws Exception
    {
        final String script = "echo started; sleep 3; echo after >&2; ls /etc/hostname";
        final Faultline.Result nativeRun = Faultline.exec(List.of("sh", "-c", script), 60);
        final Path out = tmp.resolve("out.txt");
        final Path err = tmp.resolve("err.txt");
        final Process recorder = Faultline.builder(List.of("record", "-q", "-o", tmp.resolve("t").toString(), "--",
            "sh", "-c", script)).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        waitForFile(out, "started");
        final List<ProcessHandle> program = recorder.toHandle().descendants().toList();
        recorder.toHandle().destroyForcibly();
        recorder.waitFor(30, TimeUnit.SECONDS);
        // the recorder held the agent's copy against other recorders' pruning (AgentLibrary); the
        // program holds it now: a recorder of another build cannot take it to delete it
        final Path library = agentLibraryOf(program.get(0).pid());
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(library,
            java.nio.file.StandardOpenOption.WRITE))
        {
            assertEquals(null, channel.tryLock(), library + " is held by the orphaned program");
        }
        for (final ProcessHandle p : program)
        {
            p.onExit().get(60, TimeUnit.SECONDS);
        }
        waitForFile(out, "/etc/hostname");
        assertEquals(nativeRun.out(), Files.readString(out));
        assertEquals(nativeRun.err(), Files.readString(err), "the program's stderr is its own");
    }

    /** The agent's library a process preloads (its maps name it). */
    private static Path agentLibraryOf(final long pid) throws IOException
    {
        for (final String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "maps")))
        {
            final int at = line.indexOf('/');
            if (at > 0 && line.endsWith("/libfaultline.so"))
            {
                return Path.of(line.substring(at));
            }
        }
        throw new AssertionError("pid " + pid + " maps no libfaultline.so");
    }

    @BothEngines
    void programCompletesCorrectlyWhenTheRecorderIsKilled(final String engine) throws Exception
    {
        this.engine = engine;
        final String churn = Workloads.build("churn").toString();
        final Faultline.Result nativeRun = churnSleepingNatively(churn);
        final Path trace = tmp.resolve("orphan");
        final Path out = tmp.resolve("out.txt");
        final Process recorder = Faultline.builder(List.of("record", "-q", "--engine", engine, "--evms", "16", "-o", trace.toString(), "--",
            churn, "1", "sleep", "3"))
            .redirectOutput(out.toFile()).redirectError(tmp.resolve("err.txt").toFile()).start();
        waitForFile(out, "churn rounds=1");
        final List<ProcessHandle> program = recorder.toHandle().descendants().toList();
        recorder.toHandle().destroyForcibly();
        recorder.waitFor(30, TimeUnit.SECONDS);
        for (final ProcessHandle p : program)
        {
            p.onExit().get(60, TimeUnit.SECONDS);
        }
        waitForFile(out, "after-sleep=");
        assertEquals(nativeRun.out(), Files.readString(out), "the orphaned program finishes with native output");
        assertEquals(List.of(), shmFilesOf(recorder.pid()),
            "the agent deletes the shared memory of a recorder that was killed (it would stay in /dev/shm)");
        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        assertTrue(info.out().contains("incomplete: the recorder stopped before finishing"), info.describe());
    }

    /**
     * A recorder that is stopped (SIGSTOP, as a debugger or ^Z of its job would) drains nothing:
     * the ring fills, and after 10 s without room the agent stops tracing rather than keep the
     * program waiting. The program finishes with its native output while the recorder is still
     * stopped; once the recorder runs again it says so in one line, exits 1 for a program that
     * exited 0, and keeps the trace marked incomplete, with the cause and when. The give-up is
     * the agent's ring_put, the same code under every engine; the in-thread teardown after it
     * runs under sigbus here and under mprotect in the killed-recorder test above (this one takes
     * 30 to 40 s an engine, and the suite's time is bounded).
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "--engine {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"uffd", "sigbus"})
    void aStoppedRecorderDoesNotStopTheProgram(final String engine) throws Exception
    {
        this.engine = engine;
        final String churn = Workloads.build("churn").toString();
        final Faultline.Result nativeRun = churnSleepingNatively(churn);
        final Path trace = tmp.resolve("stopped");
        final Path out = tmp.resolve("out.txt");
        final Path err = tmp.resolve("err.txt");
        // a 128 KiB ring fills within a few of churn's 100 ms steps (each about 1,000 references)
        final Process recorder = Faultline.builder(List.of("record", "--engine", engine, "--evms", "16",
            "--ring-size", "128K", "-o", trace.toString(), "--", churn, "1", "sleep", "3"))
            .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        waitForFile(out, "churn rounds=1");
        final List<ProcessHandle> program = recorder.toHandle().descendants().toList();
        assertEquals(0, Faultline.exec(List.of("kill", "-STOP", String.valueOf(recorder.pid())), 10).status());
        try
        {
            // the give-up comes 10 s after the ring filled; the rest of the program takes 3 s
            waitForFile(out, "after-sleep=");
            for (final ProcessHandle p : program)
            {
                // its parent, the recorder, is stopped and cannot reap it: gone or a zombie
                final Path status = Path.of("/proc", String.valueOf(p.pid()), "status");
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (Files.exists(status) && !Files.readString(status).contains("State:\tZ")
                    && System.nanoTime() < deadline)
                {
                    Thread.sleep(20);
                }
                assertTrue(!Files.exists(status) || Files.readString(status).contains("State:\tZ"),
                    "the program ended while its recorder was stopped: " + (Files.exists(status) ? Files.readString(status) : ""));
            }
            assertEquals(nativeRun.out(), Files.readString(out), "the program's output is its native output");
        }
        finally
        {
            Faultline.exec(List.of("kill", "-CONT", String.valueOf(recorder.pid())), 10);
        }
        assertTrue(recorder.waitFor(60, TimeUnit.SECONDS), "the recording ends once the program does");
        final String said = Files.readString(err);
        assertEquals(1, recorder.exitValue(), "the program exited 0 but the recording stopped: " + said);
        final List<String> lines = said.lines().toList();
        assertEquals(1, lines.size(), "one line: " + said);
        assertTrue(lines.get(0).matches("faultline record: recording stopped [0-9.]+ s into the run: nothing drained "
            + "the ring of pid [0-9]+ for 10 s, as when the recorder is stopped or starved of CPU, so its agent "
            + "stopped tracing; [0-9,]+ references were written, [0-9,]+ more that the agents published were not, "
            + "and the program ran on to its end untraced \\(exit status 0\\); .* holds an incomplete trace"),
            lines.get(0));
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertEquals(TraceLayout.STATE_INCOMPLETE, header.get(TraceHeader.STATE), header.values().toString());
        assertTrue(header.longValue(TraceHeader.STOPPED_NS) > 0, header.values().toString());
        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        assertTrue(info.out().contains("nothing drained the ring"), info.describe());
    }

    @BothEngines
    void slotsOfProcessesThatAreGoneAreReused(final String engine) throws Exception
    {
        this.engine = engine;
        // 30 processes one after the other (each fork child and its exec'd image take a slot
        // while they run), with 4 slots: every one of them is traced.
        final Path trace = tmp.resolve("script");
        final Faultline.Result result = Faultline.run("record", "-q", "--engine", engine, "--max-processes", "4", "-o", trace.toString(),
            "--", "sh", "-c", "i=1; while [ $i -le 30 ]; do /bin/echo $i; i=$((i+1)); done");
        assertEquals(0, result.status(), result.describe());
        assertFalse(result.err().contains("process slots are taken"), result.describe());
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertEquals(31, Integer.parseInt(header.get(TraceHeader.PROCESSES)), "sh and its 30 children");
        final StringBuilder expected = new StringBuilder();
        for (int i = 1; i <= 30; i++)
        {
            expected.append(i).append('\n');
        }
        assertEquals(expected.toString(), result.out());
    }

    private static Faultline.Result churnNative;

    /**
     * churn's output for one round and a 3 s sleep, run natively once for the five tests that
     * compare with it: its output depends on nothing but its arguments, and each run takes 3 s.
     */
    private static synchronized Faultline.Result churnSleepingNatively(final String churn) throws Exception
    {
        if (churnNative == null)
        {
            churnNative = Faultline.exec(List.of(churn, "1", "sleep", "3"), 120);
        }
        return churnNative;
    }

    /** The recorder's shared-memory files: /dev/shm/faultline-PID-*. */
    static List<Path> shmFilesOf(final long recorderPid) throws Exception
    {
        try (var files = Files.list(Path.of("/dev/shm")))
        {
            return files.filter(f -> f.getFileName().toString().startsWith("faultline-" + recorderPid + "-")).toList();
        }
    }

    static void waitForFile(final Path file, final String text) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline)
        {
            if (Files.exists(file) && Files.readString(file).contains(text))
            {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no '" + text + "' in " + file + " within 60 s: "
            + (Files.exists(file) ? Files.readString(file) : "(missing)"));
    }
}
