package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine seam seen from outside (issues 9 and 26): the in-thread engines keep a program's own
 * SIGSEGV handling and protections; record picks userfaultfd, and falls back to the sigbus engine,
 * or to mprotect without any userfaultfd, with a one-line note only when the user did not choose
 * the engine.
 */
class EngineTest
{
    /** own_segv's five faults of its own: a guard page, two writes to a page it made read-only, two reads of one it made PROT_NONE. */
    private static final String OWN_SEGV_OUT = "kept=1 faults=5 handled=5 sum=";

    @TempDir
    Path tmp;

    @BothEngines
    void theProgramsOwnSigsegvHandlerAndProtectionsAreKept(final String engine) throws Exception
    {
        final String program = Workloads.build("own_segv").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(program, "64"), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        assertTrue(nativeRun.out().startsWith(OWN_SEGV_OUT), nativeRun.describe());
        final Path trace = tmp.resolve("own-" + engine);
        final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--engine", engine, "--evms", "16", "-o",
            trace.toString(), "--", program, "64"), 120);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(nativeRun.out(), traced.out(), traced.describe());
        assertTrue(Traces.read(trace).refs.size() >= 3 * 64, "every pass over the 64 pages faults under --evms 16");
    }

    /**
     * The agent's own memory is not the program's: under the in-thread engines a wrapper that
     * touches a call's buffer before the call also wrote every page of the agent's 16 MiB buffer
     * for /proc/self/maps at each scan, and every traced process carried 16 MiB more anonymous
     * resident memory than natively (RssAnon 17,028 kB against 156 kB for grep). What the agent
     * keeps resident itself (its tables, the first signal stack, the first rings' pages) is
     * well under 4 MiB.
     */
    @BothEngines
    void theAgentAddsLittleToTheProgramsResidentMemory(final String engine) throws Exception
    {
        final List<String> command = List.of("grep", "RssAnon", "/proc/self/status");
        final long nativeKb = rssAnonKb(Faultline.exec(command, 60));
        final List<String> record = new ArrayList<>(List.of("record", "-q", "--engine", engine, "-o",
            tmp.resolve("rss-" + engine).toString(), "--"));
        record.addAll(command);
        final Faultline.Result traced = Faultline.run(record, 120);
        assertEquals(0, traced.status(), traced.describe());
        final long tracedKb = rssAnonKb(traced);
        assertTrue(tracedKb - nativeKb < 4096, "RssAnon " + tracedKb + " kB traced against " + nativeKb + " kB natively");
    }

    private static long rssAnonKb(final Faultline.Result run)
    {
        final Matcher m = Pattern.compile("RssAnon:\\s+([0-9]+) kB").matcher(run.out());
        assertTrue(m.find(), run.describe());
        return Long.parseLong(m.group(1));
    }

    /**
     * Memory the program made read-only after writing it is traced on every pass, not only at
     * its first reference. UFFDIO_MOVE refuses a page whose protection no longer matches its
     * parking slot's, both ways: the sigbus engine copies such a page home and out (and zaps the
     * copy left behind), since the program cannot write it meanwhile; the mprotect engine
     * restores the program's protection at each enabling. 64 pages read 8 times under a 16-page
     * EVMS: at least 512 references. Before, under sigbus, the page stayed home after its first
     * reference and the later passes went unrecorded. "sigbus, copy-in": every read's page comes
     * home by copy (FAULTLINE_TEST_COPY_IN), whose stale slot the copy out must drop first.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "--engine {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"sigbus", "mprotect", "sigbus, copy-in"})
    void pagesTheProgramMadeReadOnlyAreTracedOnEveryPass(final String variant) throws Exception
    {
        final String engine = variant.split(",")[0];
        final String program = Workloads.build("read_only_pages").toString();
        final Path trace = tmp.resolve("ro-" + engine);
        final Faultline.Result nativeRun = Faultline.exec(List.of(program, "64", "8"), 60);
        final ProcessBuilder builder = Faultline.builder(List.of("record", "-q", "--engine", engine, "--evms", "16", "-o",
            trace.toString(), "--", program, "64", "8"));
        if (variant.endsWith("copy-in"))
        {
            builder.environment().put("FAULTLINE_TEST_COPY_IN", "1");
        }
        final Faultline.Result traced = Faultline.finish(builder, 120);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(nativeRun.out(), traced.out(), traced.describe());
        final int refs = Traces.read(trace).refs.size();
        assertTrue(refs >= 64 * 8, refs + " references: the passes after the first went unrecorded");
    }

    /**
     * Memory the program maps while another of its threads is starting is traced from its first
     * reference. The in-thread engines hold rescans back while a thread starts, until its stack
     * is pinned; an interposed mmap's own range is no such stack and is registered at once.
     * FAULTLINE_TEST_THREAD_START_DELAY_MS holds the new thread's start open for 300 ms, inside
     * which the main thread maps 64 pages and writes each: every page's first record is that
     * write. Before, the area was registered only when the thread's start was served, by a
     * rescan, and its 64 writes went unrecorded.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "--engine {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"sigbus", "mprotect"})
    void memoryMappedWhileAnotherThreadStartsIsTracedFromItsFirstReference(final String engine) throws Exception
    {
        final String program = Workloads.build("map_while_starting").toString();
        final Path trace = tmp.resolve("starting-" + engine);
        final Faultline.Result nativeRun = Faultline.exec(List.of(program, "64"), 60);
        final ProcessBuilder builder = Faultline.builder(List.of("record", "-q", "--engine", engine, "-o",
            trace.toString(), "--", program, "64"));
        builder.environment().put("FAULTLINE_TEST_THREAD_START_DELAY_MS", "300");
        final Faultline.Result traced = Faultline.finish(builder, 120);
        assertEquals(0, traced.status(), traced.describe());
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("area=0x([0-9a-f]+) pages=64 checksum=(\\d+)")
            .matcher(traced.out());
        assertTrue(m.find(), traced.describe());
        assertTrue(nativeRun.out().contains("checksum=" + m.group(2)), "the program's memory ends as natively: "
            + nativeRun.out() + " / " + traced.out());
        final long area = Long.parseUnsignedLong(m.group(1), 16);
        final java.util.Map<Long, Traces.Ref> first = new java.util.HashMap<>();
        for (final Traces.Ref ref : Traces.read(trace).refs)
        {
            final long page = (ref.address() - area) / 4096;
            if (ref.address() >= area && page < 64)
            {
                first.putIfAbsent(page, ref);
            }
        }
        for (long page = 0; page < 64; page++)
        {
            final Traces.Ref ref = first.get(page);
            assertTrue(ref != null && ref.write(), "page " + page + " of the area: its first record is its write, not "
                + ref + "\n" + traced.describe());
        }
    }

    /**
     * Threads started on stacks the program maps itself (pthread_attr_setstack) run as natively.
     * glibc puts the thread's descriptor and static TLS at the top of such a stack and starts the
     * thread there with every signal blocked; the in-thread engines had disabled those pages as
     * any of the program's memory, and the process died of the fault nobody could take (both
     * engines, every run). The pthread_create wrapper pins the stack's top until the thread has
     * its signals back.
     */
    @BothEngines
    void threadsOnStacksTheProgramMapsRunAsNatively(final String engine) throws Exception
    {
        final String program = Workloads.build("given_stack").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(program, "20"), 60);
        for (final String evms : List.of("16", "1024"))
        {
            final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--engine", engine, "--evms", evms,
                "-o", tmp.resolve("given-" + engine + evms).toString(), "--", program, "20"), 120);
            assertEquals(0, traced.status(), traced.describe());
            assertEquals(nativeRun.out(), traced.out(), traced.describe());
        }
    }

    /**
     * wait4, waitpid, waitid, pipe, getrusage and uname writing into pages the program never
     * touched: under mprotect such a page is PROT_NONE, and without the agent's touch first the
     * kernel's write fails with EFAULT (for wait4 after reaping the child: /usr/bin/time lost
     * its child's status so). The same output as the native run.
     */
    @BothEngines
    void resultBuffersOnUntouchedPagesAreWrittenAsNatively(final String engine) throws Exception
    {
        final String program = Workloads.build("result_buffers").toString();
        assertTracedAsNatively(List.of("--engine", engine, "--evms", "16"), "buffers-" + engine, List.of(program),
            run -> assertTrue(run.out().startsWith("wait4 ok exit=7\n"), run.describe()));
    }

    /**
     * A program linked with an allocator of its own as a shared library, as jemalloc is: its
     * blocks, and glibc's own (strdup, a FILE), all come from that allocator under the agent too.
     * The agent's malloc family called glibc's, and the allocator's malloc_usable_size aborted on
     * glibc's block.
     */
    @BothEngines
    void aProgramsOwnAllocatorServesItsBlocks(final String engine) throws Exception
    {
        final Path allocator = Workloads.build("toy_alloc", "-shared", "-fPIC");
        final String program = Workloads.build("other_allocator", allocator.toString()).toString();
        assertTracedAsNatively(List.of("--engine", engine), "allocator-" + engine, List.of(program),
            run -> assertTrue(run.out().endsWith("served every block: yes\n"), run.describe()));
    }

    /**
     * 3,000 threads started and joined one after another under mprotect: each gets an alternate
     * signal stack of the agent's, and a stack is given again once the kernel says its thread is
     * gone. The agent that never gave one again grew the address space by 190 MiB here; glibc,
     * which caches thread stacks, grows it by nothing natively.
     */
    @Test
    void shortLivedThreadsReuseTheAgentsSignalStacks() throws Exception
    {
        final String program = Workloads.build("thread_after_thread").toString();
        assertTracedAsNatively(List.of("--engine", "mprotect"), "altstacks", List.of(program, "3000"),
            run -> assertTrue(run.out().endsWith(": yes\n"), run.describe()));
    }

    /**
     * poll, select, epoll_wait and waitpid whose result buffers another thread's faults evict
     * while the call waits: under mprotect the kernel's write at the end of the wait failed with
     * EFAULT in nearly every round (xz -T2 said "poll() failed: Bad address" so) until the
     * agent gave these calls bounce buffers of its own. First, 80 threads are cancelled inside
     * poll, more than the agent has buffers: it takes back those of threads that are gone. The
     * same output as the native run.
     */
    @BothEngines
    void waitingCallsWhoseBuffersAreEvictedDuringTheWaitReturnAsNatively(final String engine) throws Exception
    {
        final String program = Workloads.build("waits_while_evicting").toString();
        assertTracedAsNatively(List.of("--engine", engine, "--evms", "64"), "waits-" + engine, List.of(program, "12", "80"),
            run -> assertEquals("rounds 12: poll 12, select 12, epoll_wait 12, waitpid 12\n", run.out(), run.describe()));
    }

    /**
     * A frame of 1 MiB, deeper than the 132 KiB of stack the kernel maps at exec: the kernel grows
     * [stack] on access, with no call the agent sees (workloads/deep_stack.c). Under mprotect the
     * program died of SIGSEGV (the new part took the PROT_NONE of the stack's lowest disabled
     * page) and under sigbus the new pages came in unrecorded; uffd is the control. Every page of
     * the frame is a reference of the trace under every engine, and the output is native's.
     */
    @BothEngines
    void aStackGrownBeyondWhatIsTracedIsTracedFromItsFirstTouch(final String engine) throws Exception
    {
        final List<String> command = List.of(Workloads.build("deep_stack").toString(), "1024");
        final Faultline.Result nativeRun = Faultline.exec(command, 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        assertEquals("pages 256 sum 16256\n", nativeRun.out(), nativeRun.describe());
        final Path trace = tmp.resolve("deep-" + engine);
        final List<String> args = new ArrayList<>(List.of("record", "-q", "--engine", engine, "-o", trace.toString(), "--"));
        args.addAll(command);
        final Faultline.Result traced = Faultline.run(args, 120);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(nativeRun.out(), traced.out(), traced.describe());
        final Matcher frame = Pattern.compile("frame ([0-9a-f]+) ([0-9a-f]+)").matcher(traced.err());
        assertTrue(frame.find(), traced.describe());
        final long low = Long.parseUnsignedLong(frame.group(1), 16) >>> 12;
        final long high = Long.parseUnsignedLong(frame.group(2), 16) >>> 12;
        final java.util.Set<Long> referenced = new java.util.HashSet<>();
        for (final Traces.Ref r : Traces.read(trace).refs)
        {
            referenced.add(r.address() >>> 12);
        }
        final List<Long> missing = new ArrayList<>();
        for (long page = low; page <= high; page++)
        {
            if (!referenced.contains(page))
            {
                missing.add(page - low);
            }
        }
        assertEquals(List.of(), missing, "pages of the frame (from its lowest) with no reference under " + engine);
    }

    /**
     * A new thread's pthread_getattr_np, as a JVM calls it for every thread: glibc's internal
     * sched_getaffinity writes into the first block of the thread's new arena, which the agent
     * has just registered (under mprotect: disabled, and the kernel's write failed with EFAULT;
     * the JVM aborted at start so). The output is native's under both engines, and the thread's
     * records in its arena are the same under both: the kernel's write is a write reference
     * under userfaultfd, and the agent's touch makes it the same reference under mprotect.
     */
    @Test
    void aNewThreadsAttributesAreReadAndTheKernelsWriteIsRecordedAsUnderUserfaultfd() throws Exception
    {
        final String program = Workloads.build("thread_attr").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(program), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        assertTrue(nativeRun.out().startsWith("pthread_getattr_np ok stack=1048576 cpus=all"), nativeRun.describe());
        final Map<String, List<String>> arenaRecords = new HashMap<>();
        for (final String engine : List.of("uffd", "mprotect"))
        {
            final Path trace = tmp.resolve("attr-" + engine);
            final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--engine", engine, "-o",
                trace.toString(), "--", program), 120);
            assertEquals(0, traced.status(), traced.describe());
            assertEquals(nativeRun.out(), traced.out(), engine + ": " + traced.describe());
            final Matcher said = Pattern.compile("tid=(\\d+) heap=([0-9a-f]+)").matcher(traced.err());
            assertTrue(said.find(), traced.describe());
            final int tid = Integer.parseInt(said.group(1));
            final long heap = Long.parseUnsignedLong(said.group(2), 16);
            arenaRecords.put(engine, Traces.read(trace).refs.stream()
                .filter(r -> r.tid() == tid && r.address() >= heap && r.address() < heap + (64L << 20))
                .map(r -> "page " + (r.address() - heap) / 4096 + " " + r.kind()).toList());
        }
        assertEquals(arenaRecords.get("uffd"), arenaRecords.get("mprotect"));
        assertTrue(arenaRecords.get("uffd").get(0).endsWith(" w"),
            "the first reference in the new arena is the kernel's write into the CPU set: " + arenaRecords);
    }

    /**
     * Two threads fault at once on the same word, round after round (--evms 16 disables its page
     * between rounds): under mprotect the thread that takes the agent's lock second finds the
     * page enabled, a race it must retry each time. The agent once passed a thread's second
     * race at one address on as the program's own fault: the default action, and the process
     * died (exit 139) within a few hundred rounds; a JVM died so on class metadata.
     */
    @Test
    void aRaceLostAgainAndAgainAtOneAddressIsRetriedEachTime() throws Exception
    {
        final String program = Workloads.build("same_address").toString();
        assertTracedAsNatively(List.of("--engine", "mprotect", "--evms", "16"), "same-address", List.of(program, "1000"),
            run -> assertEquals("same_address rounds=1000 sum=6000\n", run.out(), run.describe()));
    }

    /**
     * A new thread reads the locale's LC_CTYPE data (malloc'd by setlocale, here in another
     * thread's arena) in glibc's start_thread with every signal blocked; under mprotect a fault
     * there is fatal, so the agent keeps those pages enabled. Without that the program died
     * (exit 139) on its first thread started after --evms 16 had disabled them.
     */
    @BothEngines
    void threadsStartWhileTheLocalesPagesWouldBeDisabled(final String engine) throws Exception
    {
        final String program = Workloads.build("locale_threads").toString();
        assertTracedAsNatively(List.of("--engine", engine, "--evms", "16"), "locale-" + engine, List.of(program, "50"),
            run -> assertEquals("locale C.UTF-8 threads=50\n", run.out(), run.describe()));
    }

    /**
     * An mmap with MAP_FIXED over touched memory: the fresh pages are traced from their first
     * reference under both engines (the mprotect engine hears of the replacement only from the
     * interposed mmap). Each page is referenced once before and once after: the first reference
     * after the replacement reads it, then writes it.
     */
    @BothEngines
    void memoryReplacedByAFixedMappingIsTracedAfresh(final String engine) throws Exception
    {
        final List<Traces.Ref> refs = areaReferences("fixed_replace", engine);
        final long pages = areaPages;
        assertEquals(2 * pages, refs.size(), "each page once before the replacement and once after: " + refs);
        assertEquals(pages, refs.stream().filter(Traces.Ref::write).count(), "the writes before; the reads after: " + refs);
    }

    /**
     * A 16 MiB malloc block freed: glibc unmaps it with its internal munmap, and the agent's own
     * memory lands in the hole (freed_block.c says how). The mprotect engine kept the block's
     * pages until the interposed free said otherwise, and evicting them took the agent's page
     * states away: the program died of SIGSEGV every time (sort and the JVM now and then).
     * Each of the area's 8,192 pages is then written once and, evicted by then (EVMS 4,096 pages),
     * read once.
     */
    @BothEngines
    void memoryGlibcUnmapsInFreeLeavesTracing(final String engine) throws Exception
    {
        final List<Traces.Ref> refs = areaReferences("freed_block", engine);
        final int pages = (int) areaPages;
        final long start = areaStart;
        assertEquals(2 * pages, refs.size(), "each page of the area written once, then read once");
        for (int i = 0; i < pages; i++)
        {
            assertEquals(start + 4096L * i, refs.get(i).address() & ~4095L, "write " + i);
            assertTrue(refs.get(i).write(), "write " + i);
            assertEquals(start + 4096L * i, refs.get(pages + i).address() & ~4095L, "read " + i);
            assertTrue(!refs.get(pages + i).write(), "read " + i);
        }
    }

    /**
     * Threads created and joined 900 times beside a thread that keeps the EVMS evicting. Under
     * mprotect the agent once killed every such run: a cached stack that a rescan disabled
     * between two threads, the creator's stack below glibc's pthread_create (which blocks every
     * signal), and now and then the kernel's rseq write into a new thread's descriptor.
     */
    @BothEngines
    void threadsChurningThroughGlibcsStackCacheRunAsNatively(final String engine) throws Exception
    {
        final String program = Workloads.build("thread_churn").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(program, "300"), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        for (final String evms : List.of("64", "176"))
        {
            final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--engine", engine, "--evms", evms, "-o",
                tmp.resolve("churn-" + engine + "-" + evms).toString(), "--", program, "300"), 120);
            assertEquals(0, traced.status(), traced.describe());
            assertEquals(nativeRun.out(), traced.out(), traced.describe());
        }
    }

    /** Without the userfaultfd engine's fd, record takes the sigbus engine; without any userfaultfd, mprotect. */
    @Test
    void withoutUserfaultfdRecordFallsBackWithANote() throws Exception
    {
        for (final String[] c : new String[][] {{"1", "sigbus"}, {"all", "mprotect"}})
        {
            final Path trace = tmp.resolve("fallback-" + c[1]);
            final Faultline.Result result = runWithoutUffd(c[0], List.of("record", "-q", "-o", trace.toString(), "--",
                Workloads.build("own_segv").toString(), "64"));
            assertEquals(0, result.status(), result.describe());
            assertTrue(result.out().startsWith(OWN_SEGV_OUT), result.describe());
            final List<String> lines = result.err().lines().toList();
            assertEquals(1, lines.size(), result.describe());
            assertTrue(lines.get(0).startsWith("faultline record: note: ") && lines.get(0).endsWith(
                "; recording with --engine " + c[1] + " instead"), result.describe());
            assertEquals(c[1], header(trace).getProperty("engine"));
            final Faultline.Result info = Faultline.run("info", trace.toString());
            assertTrue(info.out().contains(", scope all, engine " + c[1] + ", page size "), info.describe());
        }
    }

    @Test
    void anEngineTheUserChoseIsNotReplaced() throws Exception
    {
        final Faultline.Result result = runWithoutUffd("1", List.of("record", "-q", "--engine", "uffd", "-o",
            tmp.resolve("chosen").toString(), "--", Workloads.build("own_segv").toString(), "64"));
        assertEquals(2, result.status(), result.describe());
        assertEquals(List.of("faultline record: userfaultfd taken away by FAULTLINE_TEST_NO_UFFD (a switch for "
            + "faultline's own tests); unset it"), result.err().lines().toList());
    }

    @Test
    void theDefaultEngineIsUserfaultfdAndTheHeaderSaysSo() throws Exception
    {
        final Path trace = tmp.resolve("default");
        final Faultline.Result result = Faultline.run("record", "-q", "-o", trace.toString(), "--",
            Workloads.build("own_segv").toString(), "64");
        assertEquals(0, result.status(), result.describe());
        assertEquals("", result.err(), result.describe());
        assertEquals("uffd", header(trace).getProperty("engine"));
    }

    @Test
    void anUnknownEngineIsOneLineAndStatus2() throws Exception
    {
        final Faultline.Result result = Faultline.run("record", "--engine", "ptrace", "-o", tmp.resolve("x").toString(),
            "--", "true");
        assertEquals(2, result.status(), result.describe());
        assertEquals(List.of("faultline record: unknown engine 'ptrace'; use --engine uffd, sigbus or mprotect"),
            result.err().lines().toList());
    }

    /**
     * The program run natively, its output checked, then recorded with the given options: exit
     * status 0 both times and the same output, byte for byte.
     */
    private void assertTracedAsNatively(final List<String> options, final String label, final List<String> command,
        final Consumer<Faultline.Result> nativeCheck) throws Exception
    {
        final Faultline.Result nativeRun = Faultline.exec(command, 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        nativeCheck.accept(nativeRun);
        final List<String> args = new ArrayList<>(List.of("record", "-q"));
        args.addAll(options);
        args.addAll(List.of("-o", tmp.resolve(label).toString(), "--"));
        args.addAll(command);
        final Faultline.Result traced = Faultline.run(args, 120);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(nativeRun.out(), traced.out(), traced.describe());
    }

    /** {@code what}: 1, no userfaultfd that handles kernel-mode faults; all, none at all. */
    private static Faultline.Result runWithoutUffd(final String what, final List<String> args) throws Exception
    {
        final ProcessBuilder builder = Faultline.builder(args);
        builder.environment().put("FAULTLINE_TEST_NO_UFFD", what);
        return Faultline.finish(builder, 120);
    }

    private static Properties header(final Path trace) throws Exception
    {
        final Properties p = new Properties();
        try (var in = Files.newInputStream(trace.resolve("header.properties")))
        {
            p.load(in);
        }
        return p;
    }

    private long areaStart;
    private long areaPages;

    /**
     * Runs a workload that prints "area START END" natively and under record (EVMS 4,096 pages):
     * both exit 0 with the same output but for addresses; the references to the area, in order
     * (areaStart and areaPages say where it was).
     */
    private List<Traces.Ref> areaReferences(final String workload, final String engine) throws Exception
    {
        final String program = Workloads.build(workload).toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(program), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final Path trace = tmp.resolve(workload + "-" + engine);
        final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--engine", engine, "--evms", "4096", "-o",
            trace.toString(), "--", program), 120);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(nativeRun.out().replaceAll("0x[0-9a-f]+", "ADDR"), traced.out().replaceAll("0x[0-9a-f]+", "ADDR"));
        final Matcher area = Pattern.compile("area 0x([0-9a-f]+) 0x([0-9a-f]+)").matcher(traced.out());
        assertTrue(area.find(), traced.describe());
        areaStart = Long.parseUnsignedLong(area.group(1), 16);
        final long end = Long.parseUnsignedLong(area.group(2), 16);
        areaPages = (end - areaStart) / 4096;
        return Traces.read(trace).refs.stream().filter(r -> r.address() >= areaStart && r.address() < end).toList();
    }
}
