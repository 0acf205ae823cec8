package io.faultline.capture;

import java.nio.file.Path;
import java.util.List;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Threads hammering shared and private pages with a tiny EVMS: no hang (bounded by the
 * timeout), the data intact (the native result), and not one record lost (the agents' count is
 * the recorder's).
 */
class StressTest
{
    @TempDir
    Path tmp;

    /** Under the handler engine and the in-thread sigbus engine (issue 26), where four threads race for the lock. */
    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"uffd", "sigbus"})
    void threadsHammeringSharedAndPrivatePagesWithATinyEvms(final String engine) throws Exception
    {
        final List<String> args = List.of(Workloads.build("stress").toString(), "4", "4000", "24", "16");
        final Faultline.Result nativeRun = Faultline.exec(args, 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        for (final String evms : List.of("16", "17"))
        {
            final Path trace = tmp.resolve("stress-" + engine + evms);
            final List<String> record = new java.util.ArrayList<>(List.of("record", "-q", "--engine", engine, "--evms", evms,
                "-o", trace.toString(), "--"));
            record.addAll(args);
            final Faultline.Result traced = Faultline.run(record, 240);
            assertEquals(0, traced.status(), traced.describe());
            assertEquals(nativeRun.out(), traced.out(), "evms " + evms);
            final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
            assertEquals(header.get(TraceHeader.AGENT_RECORDS), header.get(TraceHeader.REFERENCES), "no record lost");
            assertEquals(header.longValue(TraceHeader.REFERENCES), Traces.read(trace).refs.size());
            assertTrue(header.longValue(TraceHeader.REFERENCES) > 4 * 4000, "a tiny EVMS traps most references");
        }
    }

    /**
     * Reading an UNMAP or REMOVE event releases the thread that raised it at once; a fault read
     * in the same batch must be resolved against the table after the event, or the agent moves a
     * page of the program's next mapping at that address into a parking slot that is about to be
     * freed (unmap), or brings a zapped page's old contents back (dontneed). The test knob widens
     * the window so both happen on every round; agents without the fix lost pages in 4 to 5 of
     * 6 rounds here.
     */
    @ParameterizedTest
    @ValueSource(strings = {"unmap", "dontneed", "unmap sigbus", "dontneed sigbus"})
    void eventsReadInTheSameBatchAsAFaultApplyBeforeItIsResolved(final String variant) throws Exception
    {
        // under the sigbus engine the interposed calls tell the events, on the calling thread
        final String mode = variant.split(" ")[0];
        final String engine = variant.endsWith("sigbus") ? "sigbus" : "uffd";
        final Path trace = tmp.resolve("remap-" + mode + "-" + engine);
        final ProcessBuilder builder = Faultline.builder(List.of("record", "-q", "--engine", engine, "--evms", "16", "-o",
            trace.toString(), "--", Workloads.build("remap_race").toString(), mode, "6", "32", "40000"));
        builder.environment().put("FAULTLINE_TEST_EVENT_DELAY_US", "40000");
        final Faultline.Result traced = Faultline.finish(builder, 120);
        assertEquals(0, traced.status(), traced.describe());
        assertTrue(traced.out().contains("bad_pages=0"), traced.describe());
        if (mode.equals("unmap"))
        {
            assertTrue(!traced.out().contains("same_address=0 "), "the address was reused: " + traced.out());
        }
    }

    /**
     * A fault whose resolution met EAGAIN (an event pending) is retried after the event is read;
     * the retry must evict the fault's victim before its thread runs again, as the first try
     * would have. In an N+1 loop the victim is the next page referenced, so a thread woken too
     * early would skip a fault: the trace must hold exactly one record per reference, in order.
     */
    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"uffd", "sigbus"})
    void aRetriedFaultEvictsItsVictimBeforeItsThreadRunsAgain(final String engine) throws Exception
    {
        final int rounds = 400;
        final int window = 16;
        final Path trace = tmp.resolve("defer-" + engine);
        final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--engine", engine, "--scope", "api", "--evms",
            String.valueOf(window), "-o", trace.toString(), "--", Workloads.build("defer_race", "-pthread").toString(),
            String.valueOf(rounds), String.valueOf(window)), 240);
        assertEquals(0, traced.status(), traced.describe());
        final long base = Long.decode(traced.out().replaceAll("(?s).*base=(0x[0-9a-f]+).*", "$1"));
        final List<Traces.Ref> refs = Traces.read(trace).refs;
        assertEquals(rounds * (window + 1), refs.size(), "one record per reference: " + traced.describe());
        for (int i = 0; i < refs.size(); i++)
        {
            assertEquals(base + (long)(i % (window + 1)) * 4096, refs.get(i).address() & ~4095L, "reference " + i);
        }
    }
}
