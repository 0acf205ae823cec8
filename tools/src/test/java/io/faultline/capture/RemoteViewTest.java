package io.faultline.capture;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What another process reads of a traced program through the kernel, against a native run
 * (issue 40): its command line and environment (/proc/PID/cmdline and environ, which ps and
 * pgrep -f read; they read as empty under every engine before, the kernel meeting the stack's
 * top page away), and its memory through /proc/PID/mem (debuggers) and process_vm_readv
 * (profilers such as py-spy). Memory the program used last (enabled) reads as natively under
 * every engine; memory away from its pages cannot under some, for the kernel's reasons the
 * README gives ("What other processes see"), and the test holds each engine to exactly what it
 * does, so that a kernel that lifts one of them shows here. Under uffd a process_vm_readv waits
 * for the agent like a program thread's access, and is resolved without a record: no reference
 * of the reader's thread in the trace.
 */
class RemoteViewTest
{
    @TempDir
    static Path tmp;

    private static Observed natively;

    /** What the test saw of a running held_buffers. */
    record Observed(int pid, String cmdline, String ps, List<String> environ, String near, String far, boolean pgrep)
    {
    }

    @BeforeAll
    static void nativeRun() throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder(Workloads.build("held_buffers").toString());
        builder.environment().clear();
        builder.environment().putAll(environment());
        natively = observe(builder);
    }

    /** The environment both runs get: the one the traced run's launcher is given. */
    private static Map<String, String> environment()
    {
        return Faultline.builder(List.of()).environment();
    }

    private static Observed observe(final ProcessBuilder builder) throws Exception
    {
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        final Process process = builder.start();
        try
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            final String ready = out.readLine();
            assertTrue(ready != null && ready.startsWith("ready "), "the program said: " + ready);
            final String[] w = ready.split(" ");
            final int pid = Integer.parseInt(w[1]);
            final String cmdline = new String(Files.readAllBytes(Path.of("/proc", w[1], "cmdline")), StandardCharsets.UTF_8);
            final List<String> environ = new ArrayList<>(Arrays.asList(
                new String(Files.readAllBytes(Path.of("/proc", w[1], "environ")), StandardCharsets.UTF_8).split("\0")));
            final String ps = run("ps", "-o", "comm=,args=", "-p", w[1]);
            final boolean pgrep = Arrays.asList(run("pgrep", "-f", "held_buffers").split("\n")).contains(w[1]);
            final String far = run(Workloads.build("remote_read").toString(), w[1], w[2], w[3]);
            final String near = run(Workloads.build("remote_read").toString(), w[1], w[4], w[5]);
            return new Observed(pid, cmdline, ps, environ, near, far, pgrep);
        }
        finally
        {
            process.getOutputStream().close();
            if (!process.waitFor(60, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
            }
            assertEquals(0, process.exitValue(), "held_buffers ended");
        }
    }

    private static String run(final String... command) throws Exception
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    @BothEngines
    void otherProcessesReadTheProgramAsNatively(final String engine) throws Exception
    {
        readAsNatively(engine, null);
    }

    /**
     * The same with a fault thread per CPU (FAULTLINE_HANDLERS=percpu), whose faults are resolved
     * without the agent lock (fault.c, fl_fault_drain_shared): the reader's fault is still none of
     * the program's references.
     */
    @Test
    void otherProcessesReadTheProgramAsNativelyWithAFaultThreadPerCpu() throws Exception
    {
        readAsNatively("uffd", "percpu");
    }

    private static void readAsNatively(final String engine, final String handlers) throws Exception
    {
        final Path trace = tmp.resolve("trace-" + engine + (handlers == null ? "" : "-" + handlers));
        final ProcessBuilder builder = Faultline.builder(List.of("record", "-q", "-o", trace.toString(), "--engine",
            engine, "--", Workloads.build("held_buffers").toString()));
        if (handlers != null)
        {
            builder.environment().put("FAULTLINE_HANDLERS", handlers);
        }
        final Observed traced = observe(builder);

        assertEquals(natively.cmdline(), traced.cmdline(), engine + ": /proc/PID/cmdline");
        assertEquals(natively.ps(), traced.ps(), engine + ": ps -o comm=,args=");
        assertTrue(traced.pgrep(), engine + ": pgrep -f finds the program");
        // the environment as natively, and the agent's own variables (the README says them)
        final TreeSet<String> added = new TreeSet<>(traced.environ());
        added.removeAll(natively.environ());
        added.removeIf(v -> v.startsWith("LD_PRELOAD=") && v.endsWith("libfaultline.so") || v.startsWith("FAULTLINE_SHM=")
            || v.equals("GLIBC_TUNABLES=glibc.pthread.rseq=0") && !engine.equals("uffd")
            || v.equals("FAULTLINE_HANDLERS=" + handlers));
        assertEquals(new TreeSet<>(), added, engine + ": variables the traced program has and the native one has not");
        final TreeSet<String> missing = new TreeSet<>(natively.environ());
        missing.removeAll(traced.environ());
        assertEquals(new TreeSet<>(), missing, engine + ": variables the native program has and the traced one has not");

        assertEquals(natively.near(), traced.near(), engine + ": a buffer the program used last");
        final String read = natively.far().substring(natively.far().indexOf("mem ok ") + 7, natively.far().indexOf(" vm"));
        final String far = switch (engine)
        {
            case "uffd" -> "mem EIO vm ok " + read; // ptrace-style reads cannot wait for the handler; process_vm_readv can
            case "sigbus" -> "mem EIO vm EFAULT";    // UFFD_USER_MODE_ONLY refuses every kernel access
            default -> "mem ok " + read + " vm EFAULT"; // /proc/PID/mem forces PROT_NONE, process_vm_readv does not
        };
        assertEquals("mem ok " + read + " vm ok " + read, natively.far(), "natively");
        assertEquals(far, traced.far(), engine + ": a buffer away from its pages");

        final Faultline.Result dump = Faultline.run("dump", "--format", "csv", trace.toString());
        assertEquals(0, dump.status(), dump.describe());
        int references = 0;
        for (final String line : dump.out().split("\n"))
        {
            final String[] f = line.split(",", -1); // the tag may be empty
            if (f.length == 7 && (f[4].equals("r") || f[4].equals("w")))
            {
                references++;
                assertEquals(String.valueOf(traced.pid()), f[3], engine + ": every reference is the program's thread's: " + line);
            }
        }
        // at least the pages it wrote: far's 64 and the 2,048 after them
        assertTrue(references >= 64 + 2048, engine + ": " + references + " references in the trace");
    }
}
