package io.faultline.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;

/**
 * The system-call gate (issue 27; native-shims/src/gate.c): under the in-thread engines a
 * kernel-mode access to a disabled page fails with EFAULT, and the gate brings in and holds
 * every page a system call reads or writes before the kernel runs it, whichever way the call is
 * made. Each test compares the program's output traced with a small EVMS with its native
 * output; uffd, whose kernel accesses wait for the handler, is the control.
 */
class GateTest
{
    @TempDir
    Path tmp;

    /**
     * Raw {@code syscall(SYS_read)}, readv, preadv2, sendmsg, recvmsg, ioctl FIONREAD, raw
     * getdents64 and futex waits, each handed pages the workload has just pushed out of the EVMS
     * (workloads/gate_calls.c). Without the gate (FAULTLINE_GATE=off) five of them print "Bad
     * address" under sigbus and mprotect, and the futex waits meet EFAULT.
     */
    @BothEngines
    void systemCallsHandedDisabledPagesReturnAsNatively(final String engine) throws Exception
    {
        final Path dir = Files.createDirectories(tmp.resolve("entries"));
        for (int i = 0; i < 500; i++)
        {
            Files.createFile(dir.resolve("entry-" + i));
        }
        final List<String> command = List.of(Workloads.build("gate_calls").toString(), dir.toString());
        assertRecordedAsNatively(engine, "calls", command, "16", nativeRun ->
        {
            assertTrue(nativeRun.out().contains("getdents64: 0 ok sum=502\n"), nativeRun.describe());
            assertTrue(nativeRun.out().endsWith("futex wait: word 1, efaults 0\n"), nativeRun.describe());
        });
        final int kernel = Traces.read(tmp.resolve("calls-" + engine)).kernelRefs;
        if (engine.equals("uffd"))
        {
            assertEquals(0, kernel, "the uffd engine has no gate: no reference is flagged as the kernel's");
        }
        else
        {
            assertTrue(kernel >= 8, "the gate's references are flagged as the kernel's: " + kernel);
        }
    }

    /**
     * python3's os.listdir of 5,000 entries: glibc's readdir reads them with getdents64 into a
     * buffer opendir took from malloc, a call no wrapper sees; python's start makes every kind of
     * call the gate handles (exec, mmap, openat, read, fstat, getdents64, rt_sigaction, futex).
     * Here it also gave the native output with FAULTLINE_GATE=off (the buffer stayed resident
     * between its reads); the pyenv launcher's bash chain crashed under the gate's first version
     * (its handler overran a 64 KiB signal stack).
     */
    @BothEngines
    void pythonListsABigDirectoryAsNatively(final String engine) throws Exception
    {
        final Path dir = Files.createDirectories(tmp.resolve("big"));
        for (int i = 0; i < 5000; i++)
        {
            Files.createFile(dir.resolve("file-with-a-longer-name-" + i));
        }
        final String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        final List<String> command = List.of(python, "-c",
            "import os, sys; names = sorted(os.listdir(sys.argv[1])); print(len(names), names[0], names[-1])",
            dir.toString());
        assertRecordedAsNatively(engine, "python", command, "64", nativeRun -> { });
    }

    /**
     * One read(2) of 24 MiB into parked heap pages (workloads/big_read.c): the gate holds all
     * 6,144 pages of the buffer for the call. When it held at most 4,096 a call, the read
     * returned 16 MiB under sigbus and mprotect.
     */
    @BothEngines
    void aReadIntoMoreMemoryThanTheEvmsReturnsWhole(final String engine) throws Exception
    {
        final int bytes = 24 << 20;
        final byte[] data = new byte[bytes];
        new java.util.Random(11).nextBytes(data);
        final Path file = Files.write(tmp.resolve("data"), data);
        final List<String> command = List.of(Workloads.build("big_read").toString(), file.toString(),
            Integer.toString(bytes));
        assertRecordedAsNatively(engine, "big", command, "64",
            nativeRun -> assertTrue(nativeRun.out().startsWith("read " + bytes + " of " + bytes + "\n"), nativeRun.describe()));
    }

    /**
     * poll waiting on a pollfd in memory the agent registers during the wait: the main thread's
     * stack grown past what is traced, which the rescan at another thread's start registers and
     * disables (workloads/waits_on_late_memory.c). The gate held only traced pages, and a range
     * being disabled was disabled whole before its held pages were enabled again: the kernel's
     * write of revents failed with EFAULT in every round under sigbus (and, with a mapping
     * registered late because a thread was starting, 1 run in about 24 of
     * waits_while_evicting under load).
     */
    @BothEngines
    void aCallWaitingOnMemoryRegisteredDuringTheWaitReturnsAsNatively(final String engine) throws Exception
    {
        final List<String> command = List.of(Workloads.build("waits_on_late_memory").toString(), "3");
        assertRecordedAsNatively(engine, "late", command, "512",
            nativeRun -> assertEquals("rounds 3: poll 3\n", nativeRun.out(), nativeRun.describe()));
    }

    /**
     * A thread cancelled while it waits in poll never returns from the call, and what the gate
     * held for it (its pollfd's stack page) stayed held: enabled for good, its later references
     * lost. Then the EVMS is filled twice over, and a second thread on the stack glibc kept
     * writes at the same address (workloads/cancelled_in_call.c): that write is a reference of
     * the trace under every engine (it was missing under sigbus and mprotect), and the cancelled
     * thread has its exit event, as every thread does.
     */
    @BothEngines
    void whatACancelledCallHeldIsGivenBack(final String engine) throws Exception
    {
        final List<String> command = List.of(Workloads.build("cancelled_in_call").toString(), "256");
        final Faultline.Result traced = record(engine, "cancelled", command, "64");
        assertEquals(0, traced.status(), traced.describe());
        assertEquals("same stack: yes\n", traced.out(), traced.describe());
        final java.util.regex.Matcher said = java.util.regex.Pattern.compile("tid (\\d+) pollfd ([0-9a-f]+)").matcher(traced.err());
        assertTrue(said.find(), traced.describe());
        final int tid = Integer.parseInt(said.group(1));
        final long page = Long.parseUnsignedLong(said.group(2), 16) >>> 12;
        final Traces trace = Traces.read(tmp.resolve("cancelled-" + engine));
        assertTrue(trace.refs.stream().anyMatch(r -> r.tid() == tid && r.address() >>> 12 == page),
            "no reference of the second thread to its pollfd's page under " + engine);
        final long starts = trace.events.stream().filter(e -> e.type() == io.faultline.format.EventType.THREAD_START).count();
        final long exits = trace.events.stream().filter(e -> e.type() == io.faultline.format.EventType.THREAD_EXIT).count();
        assertEquals(starts, exits, "thread exits against starts under " + engine);
    }

    /**
     * stdout keeps glibc's own buffer, from malloc, and so its size and the size of every write
     * (workloads/stream_buffer.c): the agent gave stdin and stdout buffers of its own (8 KiB,
     * outside traced memory) even under the gate, which holds and touches glibc's buffer for
     * each call, so the program's writes changed size and its buffer's references were missing.
     */
    @BothEngines
    void theProgramsStreamsKeepTheirOwnBuffers(final String engine) throws Exception
    {
        final List<String> command = List.of(Workloads.build("stream_buffer").toString());
        assertRecordedAsNatively(engine, "streams", command, "512",
            nativeRun -> assertTrue(nativeRun.out().endsWith(" bytes, in the heap\n"), nativeRun.describe()));
    }

    /**
     * The same calls by an ordinary user on a stock distribution's settings
     * (vm.unprivileged_userfaultfd=0): record takes the sigbus engine by itself, and the gate, which
     * needs no privilege (Syscall User Dispatch is a prctl of the thread's own), gives the native
     * output.
     */
    @org.junit.jupiter.api.Test
    void anOrdinaryUsersSystemCallsReturnAsNatively() throws Exception
    {
        AsNobody.onStockSettings(() ->
        {
            final AsNobody nobody = AsNobody.in(tmp);
            final Path dir = Files.createDirectories(tmp.resolve("entries"));
            for (int i = 0; i < 500; i++)
            {
                Files.createFile(dir.resolve("entry-" + i));
            }
            final Path program = nobody.copy(Workloads.build("gate_calls"));
            final Faultline.Result nativeRun = Faultline.exec(List.of(program.toString(), dir.toString()), 60);
            assertEquals(0, nativeRun.status(), nativeRun.describe());
            final Path trace = tmp.resolve("calls-nobody");
            final Faultline.Result traced = Faultline.finish(nobody.builder(List.of("record", "--evms", "16", "-o",
                trace.toString(), "--", program.toString(), dir.toString())), 120);
            assertEquals(0, traced.status(), traced.describe());
            assertEquals(nativeRun.out(), traced.out(), traced.describe());
            assertTrue(traced.err().contains("recording with --engine sigbus instead"), traced.describe());
            assertTrue(Traces.read(trace).kernelRefs >= 8, "the gate ran: references flagged as the kernel's");
        });
    }

    /**
     * The program run natively, its output checked, then recorded under the engine with an EVMS of
     * evms pages into the trace label-engine: exit status 0 both times and the same output.
     */
    private void assertRecordedAsNatively(final String engine, final String label, final List<String> command,
        final String evms, final java.util.function.Consumer<Faultline.Result> nativeCheck) throws Exception
    {
        final Faultline.Result nativeRun = Faultline.exec(command, 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        nativeCheck.accept(nativeRun);
        final Faultline.Result traced = record(engine, label, command, evms);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(nativeRun.out(), traced.out(), traced.describe());
    }

    private Faultline.Result record(final String engine, final String label, final List<String> command,
        final String evms) throws Exception
    {
        final List<String> args = new java.util.ArrayList<>(List.of("record", "-q", "--engine", engine, "--evms", evms,
            "-o", tmp.resolve(label + "-" + engine).toString(), "--"));
        args.addAll(command);
        return Faultline.run(args, 120);
    }
}
