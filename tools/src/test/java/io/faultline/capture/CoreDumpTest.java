package io.faultline.capture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A traced program that crashes leaves the core it would leave natively (issue 40): its memory at
 * its own addresses, pages the engine had parked away included (the agent brings every page home
 * before the kernel writes the core), none of the agent's memory (MADV_DONTDUMP: before, 300 MB
 * of rings, parking areas and signal stacks against a native 8 MB), only the program's threads,
 * and the registers and signal of the program's own abort(), not of the agent's signal handlers.
 * The core is read back here as gdb reads it (CoreFile): the table of blocks in the executable's
 * .bss, then every block's bytes.
 *
 * The kernel writes the core where kernel.core_pattern says. A plain file name is relative to
 * the dying process's working directory, which is an empty directory here; a pipe (apport,
 * systemd-coredump, as on CI's machines) or an absolute path is set to "core" for the duration of
 * this class and put back after it, which needs root (CI runs as root). RLIMIT_CORE is raised for
 * the test's own processes only (ulimit -c in the shell that starts them).
 */
class CoreDumpTest
{
    private static final Path CORE_PATTERN = Path.of("/proc/sys/kernel/core_pattern");
    private static final Pattern BLOCKS = Pattern.compile("blocks 0x([0-9a-f]+) (\\d+) (\\d+)");
    private static final int COUNT = 1000;

    @TempDir
    static Path tmp;

    private static String patternBefore;
    private static CoreRun nativeRun;

    /** What one run left: its standard output and its core. */
    record CoreRun(String out, CoreFile core)
    {
    }

    @BeforeAll
    static void coresGoToTheWorkingDirectory() throws Exception
    {
        final String pattern = Files.readString(CORE_PATTERN, StandardCharsets.UTF_8).strip();
        if (pattern.startsWith("|") || pattern.contains("/"))
        {
            if (!"root".equals(System.getProperty("user.name")))
            {
                fail("kernel.core_pattern is '" + pattern + "': this test reads the core a crash leaves in its working "
                    + "directory; run it as root (it sets core_pattern to 'core' for its run and puts it back) or set "
                    + "kernel.core_pattern=core");
            }
            patternBefore = pattern;
            Files.writeString(CORE_PATTERN, "core\n", StandardCharsets.UTF_8);
        }
        nativeRun = crash("native", List.of(Workloads.build("core_abort").toString(), String.valueOf(COUNT)));
    }

    @AfterAll
    static void patternBack() throws IOException
    {
        if (patternBefore != null)
        {
            Files.writeString(CORE_PATTERN, patternBefore + "\n", StandardCharsets.UTF_8);
        }
    }

    /** Runs command with cores unlimited in an empty directory; the core it left. */
    private static CoreRun crash(final String name, final List<String> command) throws Exception
    {
        final Path dir = Files.createDirectories(tmp.resolve(name));
        final StringBuilder shell = new StringBuilder("ulimit -c unlimited && cd '" + dir + "' && exec");
        for (final String word : command)
        {
            shell.append(" '").append(word).append('\'');
        }
        final ProcessBuilder builder = name.equals("native") ? new ProcessBuilder("bash", "-c", shell.toString())
            : Faultline.builder(List.of()).command("bash", "-c", shell.toString());
        final Faultline.Result result = Faultline.finish(builder, 120);
        assertEquals(134, result.status(), name + ": killed by SIGABRT\n" + result.describe());
        final List<Path> left;
        try (Stream<Path> files = Files.list(dir))
        {
            left = files.toList();
        }
        assertEquals(1, left.size(), name + ": one core in " + dir + ": " + left + "\n" + result.describe());
        return new CoreRun(result.out(), CoreFile.read(left.get(0)));
    }

    @BothEngines
    void aCrashLeavesTheCoreItWouldNatively(final String engine) throws Exception
    {
        final Path trace = tmp.resolve("trace-" + engine);
        final CoreRun traced = crash(engine, List.of(Faultline.ROOT.resolve("faultline").toString(), "record", "-q", "-o",
            trace.toString(), "--engine", engine, "--", Workloads.build("core_abort").toString(), String.valueOf(COUNT)));

        final Matcher m = BLOCKS.matcher(traced.out());
        assertTrue(m.find(), traced.out());
        final long table = Long.parseUnsignedLong(m.group(1), 16);
        final int count = Integer.parseInt(m.group(2));
        final int size = Integer.parseInt(m.group(3));
        final CoreFile core = traced.core();
        for (int i = 0; i < count; i++)
        {
            final long block = core.word(table + 8L * i);
            final byte[] bytes = core.memory(block, size);
            assertNotNull(bytes, engine + ": block " + i + " at 0x" + Long.toHexString(block) + " is in the core");
            for (int k = 0; k < size; k++)
            {
                if (bytes[k] != 'A' + i % 26)
                {
                    fail(engine + ": block " + i + " at 0x" + Long.toHexString(block) + " byte " + k + " reads "
                        + bytes[k] + " in the core, not " + ('A' + i % 26));
                }
            }
        }

        final CoreFile natively = nativeRun.core();
        assertEquals(natively.threadPcs.size(), core.threadPcs.size(), engine + ": the program's threads only");
        assertEquals(natively.signal, core.signal, engine + ": the signal");
        assertEquals(natively.signalCode, core.signalCode, engine + ": the signal's si_code (raised by abort)");
        assertEquals(natively.where(natively.threadPcs.get(0)), core.where(core.threadPcs.get(0)),
            engine + ": the dying thread stopped where it does natively (in libc's raise), not in the agent");
        // the program's memory, the blocks as natively; the agent's mappings hold nothing (measured: equal
        // to within a few pages, the dynamic loader's for the preloaded library)
        final long difference = core.dumpedBytes() - natively.dumpedBytes();
        assertTrue(Math.abs(difference) <= 256 * 1024, engine + ": the core holds " + core.dumpedBytes()
            + " bytes of memory, natively " + natively.dumpedBytes());
    }
}
