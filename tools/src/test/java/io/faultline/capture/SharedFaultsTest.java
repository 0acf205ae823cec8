package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import io.faultline.sim.policy.evms.EvmsModel;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults of different threads resolved at once, without the agent lock (issue 38; fault.c, the
 * shared path), under the in-thread engines. The EVMS order is the order in which admissions were
 * decided, which is the order of their seqs: the trace's reference records, replayed in seq order
 * into the model of the policy, give the trace's eviction records, page by page, in place. The
 * races of the shared path (a page let go while its fault is open, two threads faulting one page,
 * an unmap and a fork during a fault) are made deterministic with a pause the agent takes inside
 * one fault (FAULTLINE_TEST_SHARED_PAUSE): each test puts the other thread's work in that window
 * and checks that the program runs as natively, that the trace holds the model's evictions, and
 * that page 0 is not left enabled outside the set (its reference after the set was flushed by
 * fresh pages is a record). Before a fork the parent's pages come home and leave the set (its
 * eviction records), which the model does at the fork event.
 */
class SharedFaultsTest
{
    private static final long BASE = 0x7e0000000000L;
    private static final int PAGE = 4096;
    private static final Pattern CHECKSUM = Pattern.compile("checksum (\\d+)");

    @TempDir
    Path tmp;

    private static String checksum(final Faultline.Result r)
    {
        final Matcher m = CHECKSUM.matcher(r.out());
        assertTrue(m.find(), r.describe());
        return m.group(1);
    }

    private Faultline.Result record(final Path trace, final String engine, final List<String> options,
        final Map<String, String> env, final String... program) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("record", "-q", "--engine", engine, "--scope", "api", "-o",
            trace.toString()));
        args.addAll(options);
        args.add("--");
        args.add(Workloads.build("threads_script").toString());
        args.addAll(List.of(program));
        final ProcessBuilder builder = Faultline.builder(args);
        builder.environment().putAll(env);
        final Faultline.Result r = Faultline.finish(builder, 180);
        assertEquals(0, r.status(), r.describe());
        return r;
    }

    /**
     * The trace's reference records in seq order through the model of FIFO or segq with a FIFO
     * trail (whose order no unrecorded reference changes), one model per process: every record is
     * a miss of its process's model, and the eviction records are the model's, in their places, a
     * page unmapped deleted in its turn. Returns the records of page 0 of the first region (at
     * BASE) of every process.
     */
    private static List<Traces.Ref> assertEvictionsAreTheModels(final Traces trace, final EvmsModel.Trail trail,
        final int evms, final int lead)
    {
        final Map<Integer, List<String>> expected = new HashMap<>();
        final Map<Integer, List<String>> actual = new HashMap<>();
        final Map<Integer, EvmsModel> models = new HashMap<>();
        final List<Traces.Ref> page0 = new ArrayList<>();
        for (final Object item : trace.delivered)
        {
            final int pid = item instanceof Traces.Ref ref ? ref.pid() : ((TraceEvent)item).pid();
            final List<String> out = expected.computeIfAbsent(pid, k -> new ArrayList<>());
            final List<String> in = actual.computeIfAbsent(pid, k -> new ArrayList<>());
            final EvmsModel model = models.computeIfAbsent(pid, k -> new EvmsModel(evms, lead, trail,
                (page, tid, tag, deleted) -> out.add("evict " + Long.toHexString(page) + " tid " + tid
                    + (deleted ? " deleted" : ""))));
            if (item instanceof Traces.Ref ref)
            {
                final long page = ref.address() / PAGE;
                if (page == BASE / PAGE)
                {
                    page0.add(ref);
                }
                // a record comes before the evictions it causes (FORMAT.md, "EVMS")
                in.add("ref " + Long.toHexString(page));
                out.add("ref " + Long.toHexString(page));
                assertEquals(EvmsModel.Outcome.RECORD, model.reference(page, ref.tid(), ref.write()),
                    "seq " + ref.seq() + ": a record for page " + Long.toHexString(page) + ", which the model holds");
            }
            else if (item instanceof TraceEvent e && e.type() == EventType.EVICT)
            {
                in.add("evict " + Long.toHexString(e.a() / PAGE) + " tid " + e.tid() + (e.c() != 0 ? " deleted" : ""));
            }
            else if (item instanceof TraceEvent e && e.type() == EventType.UNTRACE_RANGE)
            {
                model.delete(e.a() / PAGE, (e.a() + e.b()) / PAGE);
            }
            else if (item instanceof TraceEvent e && e.type() == EventType.FORK)
            {
                // the parent's pages came home before the fork, every one leaving the set
                model.clear();
            }
        }
        for (final Map.Entry<Integer, List<String>> p : expected.entrySet())
        {
            // the agent's flush at the process's exit comes after the model's last eviction
            final List<String> in = actual.get(p.getKey());
            assertEquals(p.getValue(), in.subList(0, Math.min(in.size(), p.getValue().size())), "process " + p.getKey());
        }
        return page0;
    }

    /**
     * Under the in-thread engines each thread resolves its own faults; under uffd with
     * FAULTLINE_HANDLERS=percpu the fault threads resolve theirs at once (fault.c,
     * fl_fault_drain_shared), and with the one handler thread one at a time under the lock, each
     * fault of a batch its record then its evictions.
     */
    @ParameterizedTest(name = "--engine {0} {3}, {1} {2}")
    @CsvSource({"sigbus, fifo, 0, ''", "sigbus, segq, 8, ''", "mprotect, fifo, 0, ''", "mprotect, segq, 8, ''",
        "uffd, fifo, 0, percpu", "uffd, segq, 8, percpu", "uffd, fifo, 0, ''", "uffd, segq, 8, ''"})
    void threadsFaultingAtOnceKeepTheModelsOrder(final String engine, final String policy, final int lead,
        final String handlers) throws Exception
    {
        assertRandomKeepsTheModels("random", engine, policy, lead,
            handlers.isEmpty() ? Map.of() : Map.of("FAULTLINE_HANDLERS", handlers));
    }

    /**
     * Copy-in (engine_uffd.c): under sigbus a page that a read brings home beside another
     * faulting thread comes by copy from its parking slot, and each thread drops the stale slots
     * it left in batches, under their pages' locks, while other threads evict those pages into
     * the same slots and bring them home again. FAULTLINE_TEST_COPY_IN takes the path for every
     * read: the program's memory ends as natively and the evictions are the model's.
     */
    @ParameterizedTest(name = "{0}, {1} {2}")
    @CsvSource({"random, fifo, 0", "random, segq, 8", "random-calls, fifo, 0"})
    void pagesBroughtHomeByCopyBesideOtherThreadsKeepTheProgramsMemory(final String mode, final String policy,
        final int lead) throws Exception
    {
        assertRandomKeepsTheModels(mode, "sigbus", policy, lead, Map.of("FAULTLINE_TEST_COPY_IN", "1"));
    }

    /**
     * System calls beside the faults: the gate holds a call's pages, has the kernel's accesses
     * recorded and gives the pages back, each under its page lock and without the agent lock
     * (gate.c, gated_call), while the other threads fault.
     */
    @ParameterizedTest(name = "--engine {0}, {1} {2}")
    @CsvSource({"sigbus, fifo, 0", "sigbus, segq, 8", "mprotect, fifo, 0"})
    void systemCallsBesideFaultsKeepTheModelsOrder(final String engine, final String policy, final int lead)
        throws Exception
    {
        assertRandomKeepsTheModels("random-calls", engine, policy, lead, Map.of());
    }

    private void assertRandomKeepsTheModels(final String mode, final String engine, final String policy,
        final int lead, final Map<String, String> env) throws Exception
    {
        final int threads = 4;
        final int pages = 64;
        final int evms = 32;
        final String[] program = {mode, String.valueOf(threads), String.valueOf(pages), "3000"};
        final Faultline.Result natively = Faultline.exec(List.of(Workloads.build("threads_script").toString(), program[0],
            program[1], program[2], program[3]), 60);
        final Path trace = tmp.resolve(mode + "-" + engine + policy + env.hashCode());
        final List<String> options = new ArrayList<>(List.of("--evms", String.valueOf(evms)));
        if (lead > 0)
        {
            options.addAll(List.of("--policy", "segq", "--lead", String.valueOf(lead), "--trail", "fifo"));
        }
        final Faultline.Result traced = record(trace, engine, options, env, program);
        assertEquals(checksum(natively), checksum(traced), "the program's memory ends as natively");
        final Traces t = Traces.read(trace);
        final Map<Integer, Integer> perThread = new HashMap<>();
        t.refs.forEach(r -> perThread.merge(r.tid(), 1, Integer::sum));
        assertTrue(perThread.size() >= threads, "records of every thread: " + perThread);
        assertEvictionsAreTheModels(t, lead > 0 ? EvmsModel.Trail.FIFO : EvmsModel.Trail.NONE, evms, lead);
    }

    /** A pause of the fault that page 0's first reference makes, and the race it opens (threads_script's modes). */
    private Traces race(final String engine, final String mode, final int pages, final int evms, final String expectOut)
        throws Exception
    {
        final Faultline.Result natively = Faultline.exec(List.of(Workloads.build("threads_script").toString(), mode,
            String.valueOf(pages)), 60);
        assertEquals(0, natively.status(), natively.describe());
        final Path trace = tmp.resolve(mode + "-" + engine);
        final Faultline.Result traced = record(trace, engine, List.of("--evms", String.valueOf(evms)),
            Map.of("FAULTLINE_TEST_SHARED_PAUSE", "0x" + Long.toHexString(BASE) + ":1500"), mode, String.valueOf(pages));
        assertEquals(checksum(natively), checksum(traced), "the program's memory ends as natively\n" + traced.describe());
        if (expectOut != null)
        {
            assertTrue(traced.out().contains(expectOut), traced.describe());
        }
        final Traces t = Traces.read(trace);
        final List<Traces.Ref> page0 = assertEvictionsAreTheModels(t, EvmsModel.Trail.NONE, evms, 0);
        // page 0's last reference comes after the set held only fresh pages: a record of the main thread
        assertTrue(!page0.isEmpty() && page0.get(page0.size() - 1).tid() == page0.get(page0.size() - 1).pid(),
            "page 0 read by the main thread last, a record: " + page0);
        return t;
    }

    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"sigbus", "mprotect"})
    void aPageLetGoWhileItsFaultIsOpenIsNotLeftEnabled(final String engine) throws Exception
    {
        final Traces t = race(engine, "evict-during-fault", 64, 16, null);
        // thread A's fault admitted page 0, thread B's 126 admissions let it go before A moved it
        // home; A's later reference of page 0 is a record again: A, then A, then the main thread
        final List<Traces.Ref> page0 = t.refs.stream().filter(r -> r.address() / PAGE == BASE / PAGE).toList();
        assertEquals(3, page0.size(), "page 0's records: " + page0);
        assertEquals(page0.get(0).tid(), page0.get(1).tid(), "thread A faults on page 0 again: " + page0);
    }

    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"sigbus", "mprotect"})
    void twoThreadsFaultingOnePageMakeOneRecord(final String engine) throws Exception
    {
        final Traces t = race(engine, "same-page", 8, 16, null);
        // A's record; B's fault finds the page in the set (a race, no record) and brings it home
        final List<Traces.Ref> page0 = t.refs.stream().filter(r -> r.address() / PAGE == BASE / PAGE).toList();
        assertEquals(2, page0.size(), "page 0's records: thread A's, then the main thread's at the end: " + page0);
    }

    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"sigbus", "mprotect"})
    void anUnmapDuringAFaultWaitsForIt(final String engine) throws Exception
    {
        final Traces t = race(engine, "unmap-during-fault", 8, 16, null);
        final long firstRecord = t.refs.stream().filter(r -> r.address() / PAGE == BASE / PAGE).findFirst().orElseThrow().seq();
        final TraceEvent unmap = t.events.stream().filter(e -> e.type() == EventType.UNTRACE_RANGE
            && e.a() == BASE + 7L * PAGE).findFirst().orElseThrow(() -> new AssertionError("no untrace of the unmapped page"));
        assertTrue(firstRecord < unmap.seq(), "page 0's record at seq " + firstRecord + " before the unmap at " + unmap.seq());
    }

    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"sigbus", "mprotect"})
    void aForkDuringAFaultGivesTheChildCompleteMemory(final String engine) throws Exception
    {
        race(engine, "fork-during-fault", 8, 16, "child ok");
    }
}
