package io.faultline.capture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real programs under the default scope (every private anonymous writable mapping, forks and
 * execs followed) produce byte-identical output to native runs.
 */
class RealProgramsTest
{
    @TempDir
    static Path tmp;

    static Path lines;
    /** 300 KB of words for xz under either engine, kept short for CI's time. */
    static Path shortText;

    @BeforeAll
    static void inputs() throws IOException
    {
        final Random random = new Random(42);
        final StringBuilder words = new StringBuilder();
        final String[] vocabulary = {"fault", "page", "evms", "chunk", "trap", "scope", "clock", "ring", "queue", "lru"};
        while (words.length() < 300_000)
        {
            words.append(vocabulary[random.nextInt(vocabulary.length)]).append(random.nextInt(100_000))
                .append(random.nextInt(7) == 0 ? '\n' : ' ');
        }
        shortText = Files.writeString(tmp.resolve("short.txt"), words.substring(0, 300_000), StandardCharsets.US_ASCII);
        final StringBuilder rows = new StringBuilder();
        for (int i = 0; i < 200_000; i++)
        {
            rows.append(Long.toHexString(random.nextLong())).append(' ').append(random.nextInt(1000)).append('\n');
        }
        lines = Files.writeString(tmp.resolve("lines.txt"), rows, StandardCharsets.US_ASCII);
    }

    /** Runs natively and under faultline; stdout (and stderr if asked) must be identical. */
    private static Faultline.Result assertSameAsNative(final String name, final boolean compareStderr,
        final String... command) throws Exception
    {
        return assertSameAsNative(name, List.of(), compareStderr, command);
    }

    /** The same, with record options (an engine) before the program. */
    private static Faultline.Result assertSameAsNative(final String name, final List<String> options,
        final boolean compareStderr, final String... command) throws Exception
    {
        final Faultline.Result nativeRun = Faultline.exec(List.of(command), 300);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final Path trace = tmp.resolve("trace-" + name);
        final List<String> record = new ArrayList<>(List.of("record", "-q", "-o", trace.toString()));
        record.addAll(options);
        record.add("--");
        record.addAll(List.of(command));
        final Faultline.Result traced = Faultline.run(record, 600); // a limit against hangs, not a timing: xz -T2 on 3 MB took up to 240 s on a loaded 2-CPU machine
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(digest(nativeRun.out()), digest(traced.out()), name + ": stdout differs");
        if (compareStderr)
        {
            assertEquals(nativeRun.err(), traced.err(), name + ": stderr differs");
        }
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertTrue(header.longValue(TraceHeader.REFERENCES) > 100, name + " was traced: " + header.values());
        assertEquals(header.get(TraceHeader.AGENT_RECORDS), header.get(TraceHeader.REFERENCES), name + ": no record lost");
        return traced;
    }

    private static String digest(final String text) throws Exception
    {
        return text.length() < 2000 ? text
            : text.length() + " bytes, sha-256 " + HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.ISO_8859_1)));
    }

    /**
     * Two compressing threads (128 KiB blocks of 300 KB of text), a pipeline of three processes.
     * 300 KB because every reference outside the EVMS here costs a move out and a TLB shootdown
     * to the other CPU: 1.5 MB took over 300 s on a quiet 2-CPU machine and passed CI's 600 s
     * limit on a loaded one; 300 KB takes about 70 s. Before 2026-11-21 about one run in five
     * of the larger input gave a different (valid) compressed stream: the agent met an occupied
     * parking slot with the page absent from home and dropped the slot, i.e. the page's only
     * copy (park.c, slot_taken); the deterministic guard for that is
     * IntegrityTest.tracingATracedRangeAgainKeepsItsParkedPages.
     */
    @Test
    void xzWithTwoThreads() throws Exception
    {
        assertSameAsNative("xz", false, "sh", "-c", "xz -T2 --block-size=128KiB -c " + shortText + " | od -An -tx1 | sha256sum");
    }

    @Test
    void sortInParallel() throws Exception
    {
        assertSameAsNative("sort", false, "sort", "--parallel=2", "-S", "2M", "-k2,2n", "-k1,1", lines.toString());
    }

    /**
     * Under the mprotect engine a kernel-mode access to a disabled page fails (EFAULT): sort's
     * read(2)s and stdio buffers are what the agent's touching has to cover (the first try at
     * this engine failed here with "read failed: Bad address", a FILE buffer in traced memory).
     */
    @Test
    void sortInParallelUnderMprotect() throws Exception
    {
        assertSameAsNative("sort-mprotect", List.of("--engine", "mprotect"), false, "sort", "--parallel=2", "-S", "2M",
            "-k2,2n", "-k1,1", lines.toString());
    }

    /**
     * The sigbus engine (issue 26): kernel-mode accesses fail as under mprotect, so sort's reads
     * and stdio buffers, xz's threads and pipeline, and the JVM's start need the same touching
     * (touch.c, shared by both in-thread engines). The xz pipeline runs under sigbus only of the
     * two: it took 70 s under mprotect, about a third of that under sigbus, and the suite's time
     * is bounded; mprotect keeps sort and java -version here and its own cases in EngineTest.
     */
    @Test
    void sortInParallelUnderSigbus() throws Exception
    {
        assertSameAsNative("sort-sigbus", List.of("--engine", "sigbus"), false, "sort", "--parallel=2", "-S", "2M",
            "-k2,2n", "-k1,1", lines.toString());
    }

    @Test
    void xzWithTwoThreadsUnderSigbus() throws Exception
    {
        assertSameAsNative("xz-sigbus", List.of("--engine", "sigbus"), false, "sh", "-c",
            "xz -T2 --block-size=128KiB -c " + shortText + " | od -An -tx1 | sha256sum");
    }

    @Test
    void javaVersionUnderSigbus() throws Exception
    {
        assertSameAsNative("java-version-sigbus", List.of("--engine", "sigbus"), true, javaCommand(), "-version");
    }

    @Test
    void sqlite3() throws Exception
    {
        assertSameAsNative("sqlite3", false, "sqlite3", ":memory:",
            "create table t(k integer primary key, v text);"
                + "with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)"
                + " insert into t select i, hex(i * 7919 % 10007) from n;"
                + "create index tv on t(v);"
                + "select count(*), sum(k), min(v), max(v) from t where v like '1%';"
                + "select v, count(*) from t group by substr(v, 1, 2) order by 2 desc, 1 limit 5;");
    }

    @Test
    void python3() throws Exception
    {
        // the interpreter itself: `python3` on PATH may be a shell-script shim (pyenv) that runs
        // dozens of processes before python starts
        final Faultline.Result which = Faultline.exec(List.of("python3", "-c", "import sys; print(sys.executable)"), 60);
        assertEquals(0, which.status(), which.describe());
        assertSameAsNative("python3", false, which.out().strip(), "-c",
            "import hashlib, json\n"
                + "d = {str(i): [i * j % 97 for j in range(50)] for i in range(3000)}\n"
                + "s = json.dumps(d, sort_keys=True)\n"
                + "print(len(s), hashlib.sha256(s.encode()).hexdigest())\n"
                + "print(sum(sorted(x[7] for x in d.values())))");
    }

    @Test
    void javaVersion() throws Exception
    {
        assertSameAsNative("java-version", true, javaCommand(), "-version");
    }

    /**
     * The JVM under mprotect: each thread's pthread_getattr_np has the kernel write into a block
     * in a new arena, each thread's start reads the locale's data with every signal blocked, and
     * JIT'd threads race on the pages of class metadata (README, "Engines").
     */
    @Test
    void javaVersionUnderMprotect() throws Exception
    {
        assertSameAsNative("java-version-mprotect", List.of("--engine", "mprotect"), true, javaCommand(), "-version");
    }

    /**
     * Three pool threads, 20,000 entries per task (about 310,000 references, most of them the
     * JVM's own). The default 200,000 took over 300 s here on a day the bare userfaultfd
     * handoff cost 30 us, and 425 s on CI: the size keeps the suite within its time.
     */
    @Test
    void multiThreadedJavaProgram() throws Exception
    {
        assertSameAsNative("java-workers", false, javaCommand(), "-Xmx256m", "-cp", workers().toString(), "Workers",
            "20000");
    }

    /**
     * Three pool threads under G1 with the mprotect engine (about 35 s here under nice 19).
     * Disabled until issue 27: it crashed in about 1 run in 20, for a cause after each fix, the
     * last one glibc's abort ("The futex facility returned an unexpected error code") when a futex
     * system call met a page another thread's fault had just disabled. The system-call gate holds
     * every futex word (and every other call's memory) until the call returns (gate.c;
     * bench/jvm-mprotect-loop.sh, BENCHMARKS.md "System-call gate").
     */
    @Test
    void multiThreadedJavaProgramUnderMprotect() throws Exception
    {
        assertSameAsNative("java-workers-mprotect", List.of("--engine", "mprotect"), false, javaCommand(), "-Xmx256m",
            "-cp", workers().toString(), "Workers", "20000");
    }

    /** The capture benchmark's JVM workload (bench/workloads), one definition for both, compiled once. */
    private static synchronized Path workers() throws Exception
    {
        final Path dir = tmp.resolve("javaprog");
        if (Files.exists(dir.resolve("Workers.class")))
        {
            return dir;
        }
        Files.createDirectories(dir);
        Files.copy(Faultline.ROOT.resolve("bench/workloads/Workers.java"), dir.resolve("Workers.java"));
        final Process javac = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
            "-d", dir.toString(), dir.resolve("Workers.java").toString()).inheritIO().start();
        assertEquals(0, javac.waitFor());
        return dir;
    }

    private static String javaCommand()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
