package io.faultline.capture;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a traced program asks the kernel about itself reads as natively (issue 40, "the program
 * cannot tell"), under every engine: the number its first open gets (the agent's descriptors
 * took 3 to 10), its resource limits (the JVM recorder raised RLIMIT_NOFILE for its children), its
 * signal mask (SIGQUIT came blocked from the JVM; SIGSYS and the fault signal, which the agent
 * never blocks, read back as the program blocked them), its signal actions as it set them (not
 * the agent's restorer, SA_ONSTACK or core catcher), its own alternate signal stack, its
 * transparent-huge-page setting (the agent turns THP off), the residency of pages away from their
 * addresses (mincore), its coredump_filter (0x3f from the JVM), and the prctl and process
 * settings of program_view.c. What still differs is listed in the README ("What the program
 * can tell"): the agent's thread, mappings, descriptors and signal handlers as /proc shows them.
 */
class ProgramViewTest
{
    @TempDir
    static Path tmp;

    @BothEngines
    void theProgramSeesItselfAsNatively(final String engine) throws Exception
    {
        final ProcessBuilder nativeRun = new ProcessBuilder(Workloads.build("program_view").toString());
        nativeRun.environment().clear();
        nativeRun.environment().putAll(Faultline.builder(List.of()).environment());
        final Faultline.Result natively = Faultline.finish(nativeRun, 60);
        assertEquals(0, natively.status(), natively.describe());
        final Faultline.Result traced = Faultline.run("record", "-q", "-o", tmp.resolve(engine).toString(), "--engine", engine,
            "--", Workloads.build("program_view").toString());
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(natively.out(), traced.out(), engine);
        assertEquals("", traced.err(), engine);
    }

    /**
     * A program that closes every descriptor it did not open (close_range, closefrom) leaves the
     * agent's alone and keeps its memory whole: before, it closed the userfaultfd under the agent
     * and parked pages read as zeros (an abort in free() under uffd, SIGSEGV under sigbus).
     */
    @BothEngines
    void closingEveryDescriptorLeavesTheAgentsAlone(final String engine) throws Exception
    {
        final Faultline.Result natively = Faultline.exec(List.of(Workloads.build("close_all").toString()), 60);
        assertEquals("close_range 0 close EBADF 40 bad 0\n", natively.out(), natively.describe());
        final Faultline.Result traced = Faultline.run("record", "-q", "-o", tmp.resolve("close-" + engine).toString(),
            "--engine", engine, "--", Workloads.build("close_all").toString());
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(natively.out(), traced.out(), engine);
    }
}
