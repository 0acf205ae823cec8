package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import io.faultline.sim.policy.evms.EvmsModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recorded sequence of a workload with a known reference sequence (reference records with
 * page and kind, eviction records with page and tag) equals what the EVMS model predicts under
 * fifo, segq with a FIFO trail and segq with a CLOCK trail, record for record, with exact
 * faulting addresses, under both engines.
 */
class ExactnessTest
{
    private static final int PAGE = 4096;
    private static final Pattern BASE = Pattern.compile("base=0x([0-9a-f]+)");

    @TempDir
    Path tmp;

    /** The engine of the running test ({@link BothEngines}); null: record chooses. */
    private String engine = "uffd";

    /** Record as nobody (null: as this user). */
    private AsNobody nobody;

    /** The last recording's outcome. */
    private Faultline.Result recorded;

    /** FAULTLINE_HANDLERS for the recording, or null for the default (one handler thread). */
    private String handlers;

    /** Set, the recording runs with FAULTLINE_TEST_NO_WP_ASYNC: the synchronous dirty tracking. */
    private boolean noAsyncWriteProtect;

    /** Set, the recording runs with FAULTLINE_TEST_COPY_IN: every read's page comes home by copy. */
    private boolean copyIn;

    private void assertTraceMatchesModel(final int evms, final int pages, final int populate, final String script)
        throws Exception
    {
        assertTraceMatchesModel(EvmsModel.Trail.NONE, evms, 0, pages, "", populate, script);
    }

    /** {@code placement}: "" for anywhere, "@LIB" for right after LIB's last mapping (api_script). */
    private void assertTraceMatchesModel(final int evms, final int pages, final String placement, final int populate,
        final String script) throws Exception
    {
        assertTraceMatchesModel(EvmsModel.Trail.NONE, evms, 0, pages, placement, populate, script);
    }

    private void assertTraceMatchesModel(final EvmsModel.Trail trail, final int evms, final int lead, final int pages,
        final int populate, final String script) throws Exception
    {
        assertTraceMatchesModel(trail, evms, lead, pages, "", populate, script);
    }

    /**
     * Records api_script under the policy (NONE: --policy fifo; FIFO, CLOCK: --policy segq with
     * that trail and --lead) and compares every reference record and eviction record, in
     * order, with {@link ScriptModel}: page, kind, tag, and the thread of each eviction.
     */
    private void assertTraceMatchesModel(final EvmsModel.Trail trail, final int evms, final int lead, final int pages,
        final String placement, final int populate, final String script) throws Exception
    {
        assertTraceMatchesModel(trail, evms, lead, pages, placement, populate, script, true);
    }

    private void assertTraceMatchesModel(final EvmsModel.Trail trail, final int evms, final int lead, final int pages,
        final String placement, final int populate, final String script, final boolean dirtyTracking) throws Exception
    {
        final Path data = tmp.resolve("data.bin");
        Files.write(data, new byte[4096]);
        final Path trace = tmp.resolve("trace-" + trail + evms + "-" + lead + "-" + dirtyTracking + "-" + script.hashCode()
            + (noAsyncWriteProtect ? "-sync" : "") + (copyIn ? "-copy" : ""));
        final List<String> args = new ArrayList<>(List.of("record", "-q", "-o", trace.toString(), "--scope", "api",
            "--evms", String.valueOf(evms)));
        if (engine != null)
        {
            args.addAll(List.of("--engine", engine));
        }
        if (trail != EvmsModel.Trail.NONE)
        {
            args.addAll(List.of("--policy", "segq", "--lead", String.valueOf(lead), "--trail", trail.name().toLowerCase()));
        }
        if (!dirtyTracking)
        {
            args.add("--no-dirty");
        }
        final Path program = nobody == null ? Workloads.build("api_script") : nobody.copy(Workloads.build("api_script"));
        args.addAll(List.of("--", program.toString(), pages + placement, String.valueOf(populate), script, data.toString()));
        final ProcessBuilder builder = nobody == null ? Faultline.builder(args) : nobody.builder(args);
        if (handlers != null)
        {
            builder.environment().put("FAULTLINE_HANDLERS", handlers);
        }
        if (noAsyncWriteProtect)
        {
            builder.environment().put("FAULTLINE_TEST_NO_WP_ASYNC", "1");
        }
        if (copyIn)
        {
            builder.environment().put("FAULTLINE_TEST_COPY_IN", "1");
        }
        final Faultline.Result result = Faultline.finish(builder, 120);
        recorded = result;
        assertEquals(0, result.status(), result.describe());
        final Matcher m = BASE.matcher(result.out());
        assertTrue(m.find(), result.describe());
        final long base = Long.parseUnsignedLong(m.group(1), 16);

        final List<String> expected = ScriptModel.expected(trail, evms, lead, pages, script, dirtyTracking);
        final List<String> actual = new ArrayList<>();
        final Traces traces = Traces.read(trace);
        final int tid = traces.refs.isEmpty() ? 0 : traces.refs.get(0).tid();
        for (final Object item : traces.delivered)
        {
            if (item instanceof Traces.Ref ref)
            {
                final long offset = ref.address() - base;
                assertTrue(offset >= 0 && offset < (long)pages * PAGE, "reference outside the registered range: " + ref);
                actual.add("" + ref.kind() + offset / PAGE);
            }
            else if (item instanceof TraceEvent event && event.type() == EventType.EVICT)
            {
                final long offset = event.a() - base;
                assertTrue(offset >= 0 && offset < (long)pages * PAGE && offset % PAGE == 0, "eviction of a page outside the range: " + event);
                assertEquals(tid, event.tid(), "an eviction names the thread that brought the page in: " + event);
                actual.add("evict " + (char)event.b() + offset / PAGE);
            }
        }
        assertEquals(expected, actual, "script " + script + " with evms " + evms + " " + trail + " lead " + lead);
        long previous = -1;
        for (final Traces.Ref ref : traces.refs)
        {
            assertTrue(ref.seq() > previous, "seq must increase in trace order: " + traces.refs);
            previous = ref.seq();
        }
    }

    private static String loop(final String kind, final int pages, final int rounds)
    {
        final StringBuilder s = new StringBuilder();
        for (int r = 0; r < rounds; r++)
        {
            for (int p = 0; p < pages; p++)
            {
                s.append(s.length() == 0 ? "" : ",").append(kind).append(p);
            }
        }
        return s.toString();
    }

    @BothEngines
    void firstReferencesAfterRegisteringPopulatedPagesAreAllRecorded(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(16, 8, 8, "r0,r1,w2,r3,w4,r5,r6,w7,r0,w1");
    }

    @BothEngines
    void loopOverOneMorePageThanTheEvmsFaultsEveryTime(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(16, 17, 17, loop("r", 17, 3));
    }

    @BothEngines
    void loopOverOneFewerPageThanTheEvmsFaultsOnlyOnce(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(16, 15, 15, loop("w", 15, 4));
    }

    /**
     * The opt-in per-CPU placement (FAULTLINE_HANDLERS=percpu: a SCHED_IDLE fault thread per CPU
     * and the guard; docs/ARCHITECTURE.md, "Fault handling") records the same trace.
     */
    @Test
    void thePerCpuPlacementRecordsTheSameTrace() throws Exception
    {
        handlers = "percpu";
        assertTraceMatchesModel(16, 17, 17, loop("r", 17, 3));
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 24, 10, loop("w", 20, 2) + "," + loop("r", 24, 2));
    }

    /**
     * An ordinary user on a stock distribution's settings (vm.unprivileged_userfaultfd=0: no
     * userfaultfd that handles kernel-mode faults, only UFFD_USER_MODE_ONLY) records without
     * naming an engine: record takes the sigbus engine, says so in one note, and the trace is
     * the model's, under segq with a CLOCK trail and dirty tracking (issue 26).
     */
    @Test
    void anOrdinaryUserRecordsExactlyUnderTheSigbusEngine() throws Exception
    {
        AsNobody.onStockSettings(() ->
        {
            nobody = AsNobody.in(tmp);
            engine = null;
            assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 24, 10, loop("w", 20, 2) + "," + loop("r", 24, 2));
            final List<String> err = AsNobody.errLines(recorded);
            assertEquals(1, err.size(), recorded.describe());
            assertTrue(err.get(0).startsWith("faultline record: note: no permission to use userfaultfd")
                && err.get(0).contains("; recording with --engine sigbus instead"), recorded.describe());
        });
    }

    @BothEngines
    void readsAndWritesKeepTheirKind(final String engine) throws Exception
    {
        this.engine = engine;
        // 80 references over 24 pages, some populated before registering, reads and writes mixed
        final java.util.Random random = new java.util.Random(7);
        final StringBuilder script = new StringBuilder();
        for (int i = 0; i < 80; i++)
        {
            script.append(i == 0 ? "" : ",").append(random.nextBoolean() ? 'r' : 'w').append(random.nextInt(24));
        }
        assertTraceMatchesModel(16, 24, 10, script.toString());
    }

    @BothEngines
    void readSyscallIntoAnEvictedPageIsRecordedAsAWrite(final String engine) throws Exception
    {
        this.engine = engine;
        // w0 then 16 other pages evict page 0; s0 is the kernel writing it in read(2)
        assertTraceMatchesModel(16, 18, 18, "w0," + loop("r", 17, 1).replace("r0,", "") + ",s0,r0,r17,s1,r1");
    }

    /**
     * Anonymous memory right after the image of ld.so (whose data the agent never traces) is the
     * program's: the agent once refused it, taking every anonymous mapping that follows one of
     * its libraries for that library's .bss (a JVM's direct buffer merged into libfaultline's
     * .bss line was refused one run in twenty).
     */
    @BothEngines
    void memoryRightAfterTheLoadersImageIsTraced(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(16, 20, "@ld-linux", 20, loop("r", 20, 2));
    }

    @BothEngines
    void writesToPagesFirstReadDirtyThemWithoutARecord(final String engine) throws Exception
    {
        this.engine = engine;
        // r then w while resident: one record, tag w; read-only pages stay r
        assertTraceMatchesModel(16, 20, 20, "r0,w0,r1,r2,w2,r3," + loop("r", 20, 1) + ",w1");
    }

    /**
     * A kernel without asynchronous write-protect (UFFD_FEATURE_WP_ASYNC, Linux 6.7), which
     * FAULTLINE_TEST_NO_WP_ASYNC stands in for: the userfaultfd engines take a fault at each first
     * write to a page a read brought in, as before issue 31, say so once in one line, and record
     * the same trace as the asynchronous path, whose recording says nothing.
     */
    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"uffd", "sigbus"})
    void withoutAsynchronousWriteProtectDirtyTrackingFaultsAndTheTraceIsTheSame(final String engine) throws Exception
    {
        this.engine = engine;
        final String script = "r0,w0,r1,r2,w2,r3," + loop("r", 20, 1) + ",w1";
        assertTraceMatchesModel(16, 20, 20, script);
        assertTrue(AsNobody.errLines(recorded).stream().noneMatch(l -> l.contains("write-protect")), recorded.describe());
        noAsyncWriteProtect = true;
        assertTraceMatchesModel(16, 20, 20, script);
        final List<String> notes = AsNobody.errLines(recorded).stream().filter(l -> l.contains("write-protect")).toList();
        assertEquals(List.of("faultline agent: note: asynchronous write-protect (UFFD_FEATURE_WP_ASYNC) taken away by "
            + "FAULTLINE_TEST_NO_WP_ASYNC (a switch for faultline's own tests); dirty tracking takes a fault at the "
            + "first write to each page a read brought in"), notes, recorded.describe());
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 28, 28, REREFERENCES);
    }

    /**
     * Copy-in (engine_uffd.c): under the sigbus engine a page that a read brings home beside
     * another faulting thread comes by UFFDIO_COPY from its parking slot, write-protected in the
     * same call, and the slot's stale copy is dropped later with others. FAULTLINE_TEST_COPY_IN
     * takes that path for every read, so that one-thread scripts, whose traces the model gives
     * record for record, check it: the dirty tag of a page written after its read (from the page
     * table, asynchronously, and from a fault, synchronously), a page unmapped or zapped while
     * enabled, re-references under CLOCK, and more pages than the thread's list of stale slots.
     */
    @Test
    void pagesBroughtHomeByCopyKeepTheModelsTrace() throws Exception
    {
        engine = "sigbus";
        copyIn = true;
        assertTraceMatchesModel(16, 20, 20, "r0,w0,r1,r2,w2,r3," + loop("r", 20, 1) + ",w1");
        assertTraceMatchesModel(16, 24, 24, "r0,r1,w1,r2,w2,r3,u1,u2," + loop("r", 20, 1).replace("r1,", "").replace("r2,", ""));
        assertTraceMatchesModel(16, 24, 24, "r0,r1,w1,r2,w2,r3,d1,d2," + loop("r", 20, 1));
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 28, 28, REREFERENCES);
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 17, 17, loop("r", 15, 3) + "," + loop("w", 17, 2));
        assertTraceMatchesModel(16, 64, 64, loop("r", 64, 3) + "," + loop("w", 64, 1) + "," + loop("r", 64, 1));
        noAsyncWriteProtect = true;
        assertTraceMatchesModel(16, 20, 20, "r0,w0,r1,r2,w2,r3," + loop("r", 20, 1) + ",w1");
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 28, 28, REREFERENCES);
    }

    /**
     * A page brought in by a read and written before it is unmapped keeps its dirty flag in its
     * deleted eviction record. Under asynchronous write-protect the flag is in the page table
     * until the page goes, and userfaultfd says UFFD_EVENT_UNMAP only after that: the agent reads
     * it before the call (trace-format/FORMAT.md, "EVMS").
     */
    @BothEngines
    void pagesWrittenAfterTheirReadStayDirtyWhenUnmapped(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(16, 24, 24, "r0,r1,w1,r2,w2,r3,u1,u2," + loop("r", 20, 1).replace("r1,", "").replace("r2,", ""));
    }

    /**
     * The same with madvise(MADV_DONTNEED), which userfaultfd (UFFD_EVENT_REMOVE) and the
     * interposed call under sigbus both report after the zap; page 2 is read again afterwards,
     * a new page at the old address.
     */
    @BothEngines
    void pagesWrittenAfterTheirReadStayDirtyWhenZapped(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(16, 24, 24, "r0,r1,w1,r2,w2,r3,d1,d2," + loop("r", 20, 1));
    }

    @BothEngines
    void withoutDirtyTrackingWritesToEnabledPagesAreNotSeen(final String engine) throws Exception
    {
        this.engine = engine;
        // the same script as above under --no-dirty: w0 and w2 hit their enabled pages, the tags stay r
        final String script = "r0,w0,r1,r2,w2,r3," + loop("r", 20, 1) + ",w1";
        assertTraceMatchesModel(EvmsModel.Trail.NONE, 16, 0, 20, "", 20, script, false);
        assertTrue(ScriptModel.expected(EvmsModel.Trail.NONE, 16, 0, 20, script, false).contains("evict r0"),
            "the model under --no-dirty must differ from the exact one where the test says it does");
    }

    @BothEngines
    void withoutDirtyTrackingSegqStillSeesWritesThatFault(final String engine) throws Exception
    {
        this.engine = engine;
        // re-references of disabled trailing pages fault, so their writes still count (tag W)
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 28, "", 28, REREFERENCES, false);
    }

    @BothEngines
    void munmapOfResidentPagesDeletesThemUntilTheirTurn(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(16, 24, 24, "w0,r1,r2,w3,u1,u3," + loop("r", 20, 1).replace("r1,", "").replace("r3,", ""));
    }

    @BothEngines
    void registeringAgainFlushesTheResidentPages(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(16, 8, 8, "r0,w1,r2,t0,r0,r1");
    }

    @BothEngines
    void segqWithFifoTrailLoopsOverOneFewerAndOneMorePage(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(EvmsModel.Trail.FIFO, 16, 4, 17, 17, loop("r", 15, 3) + "," + loop("w", 17, 2));
    }

    @BothEngines
    void segqWithClockTrailLoopsOverOneFewerAndOneMorePage(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 17, 17, loop("r", 15, 3) + "," + loop("w", 17, 2));
    }

    /** re-references inside the trailing segment: soft faults, tags R and W, CLOCK's second chances */
    private static final String REREFERENCES = "r0,r1,w2,r3,r4,r5,r6,r7,r8,r9,r10,r11,r0,w1,r2,r12,r13,r14,r15,r16,"
        + "r17,r18,r0,r19,r20,w3,r21,r22,r1,r23,r24,r25,r26,r27,r0,r1,r2,r3";

    @BothEngines
    void segqWithClockTrailRereferencesAreSoftFaultsTaggedCapital(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 28, 28, REREFERENCES);
    }

    @BothEngines
    void segqWithFifoTrailRereferencesAreSoftFaultsTaggedCapital(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(EvmsModel.Trail.FIFO, 16, 4, 28, 28, REREFERENCES);
    }

    @BothEngines
    void segqDeletedAndWrittenPagesUnderClock(final String engine) throws Exception
    {
        this.engine = engine;
        assertTraceMatchesModel(EvmsModel.Trail.CLOCK, 16, 4, 24, 12,
            "r0,r1,r2,r3,r4,r5,w6,r7,r0,w1,u2,r8,r9,w0,u1,s5,r10,r11,r12,r13,r14,r15,r16,r17,r18,r19,r20,r0,r3");
    }

    @BothEngines
    void exactFaultingAddressesAreRecorded(final String engine) throws Exception
    {
        this.engine = engine;
        final Path trace = tmp.resolve("exact");
        final Faultline.Result result = Faultline.run("record", "-q", "-o", trace.toString(), "--scope", "api",
            "--engine", engine, "--evms", "16", "--", Workloads.build("api_script").toString(), "4", "0", "r1,w2,r3,r0");
        assertEquals(0, result.status(), result.describe());
        final Matcher m = BASE.matcher(result.out());
        assertTrue(m.find());
        final long base = Long.parseUnsignedLong(m.group(1), 16);
        final List<Long> addresses = new ArrayList<>();
        Traces.read(trace).refs.forEach(r -> addresses.add(r.address() - base));
        assertEquals(List.of(PAGE + 8L, 2L * PAGE + 16, 3L * PAGE + 24, 0L), addresses);
    }
}
