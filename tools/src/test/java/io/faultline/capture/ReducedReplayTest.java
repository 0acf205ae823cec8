package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.sim.Policies;
import io.faultline.sim.Policy;
import io.faultline.sim.PolicySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kVMTrace's claim (Kaplan, Smaragdakis and Wilson, ACM TOMACS 2003): a trace reduced by an
 * EVMS of N pages replays exactly, or nearly, like the full trace at sizes well above N. Here:
 * a workload whose full page sequence is known (api_script on a phased, skewed script),
 * recorded with --evms 16 under fifo and under segq with a CLOCK trail; LRU and CLOCK replayed
 * at 30 times the EVMS on the reference records must miss within 1% (of the full trace's
 * references) of the full sequence. The measured miss ratios are printed.
 */
class ReducedReplayTest
{
    private static final int PAGE = 4096;
    private static final int EVMS = 16;
    private static final int SIZE = 30 * EVMS;
    private static final int PAGES = 2000;

    @TempDir
    Path tmp;

    /** Phases of 1500 references over a working set of 300 to 700 pages, 80% on a fifth of it. */
    private static List<Integer> script()
    {
        final Random random = new Random(10);
        final List<Integer> pages = new ArrayList<>();
        for (int phase = 0; phase < 10; phase++)
        {
            final int start = random.nextInt(PAGES - 700);
            final int size = 300 + random.nextInt(400);
            for (int i = 0; i < 1500; i++)
            {
                final int hot = size / 5;
                pages.add(start + (random.nextInt(10) < 8 ? random.nextInt(hot) : hot + random.nextInt(size - hot)));
            }
        }
        return pages;
    }

    private static long misses(final String policy, final long[] keys)
    {
        final Policy p = Policies.create(PolicySpec.parse(policy), SIZE, keys);
        long misses = 0;
        for (final long key : keys)
        {
            misses += p.record(key) ? 0 : 1;
        }
        return misses;
    }

    private long[] recorded(final String name, final List<String> policyArgs, final String script) throws Exception
    {
        final Path trace = tmp.resolve(name);
        final List<String> args = new ArrayList<>(List.of("record", "-q", "-o", trace.toString(), "--scope", "api",
            "--evms", String.valueOf(EVMS)));
        args.addAll(policyArgs);
        args.addAll(List.of("--", Workloads.build("api_script").toString(), String.valueOf(PAGES), "0", script));
        final Faultline.Result result = Faultline.run(args, 300);
        assertEquals(0, result.status(), result.describe());
        final Matcher m = Pattern.compile("base=0x([0-9a-f]+)").matcher(result.out());
        assertTrue(m.find(), result.describe());
        final long base = Long.parseUnsignedLong(m.group(1), 16);
        return Traces.read(trace).refs.stream().mapToLong(r -> (r.address() - base) / PAGE).toArray();
    }

    @Test
    void fifoAndClockReducedTracesReplayLikeTheFullTraceAtThirtyTimesTheEvms() throws Exception
    {
        final List<Integer> pages = script();
        final StringBuilder script = new StringBuilder();
        pages.forEach(p -> script.append(script.length() == 0 ? "" : ",").append('r').append(p));
        final long[] full = pages.stream().mapToLong(Integer::longValue).toArray();
        final long[] fifo = recorded("fifo", List.of(), script.toString());
        final long[] clock = recorded("clock", List.of("--policy", "clock"), script.toString());
        for (final String policy : List.of("lru", "clock"))
        {
            final double exact = misses(policy, full) / (double)full.length;
            final double byFifo = misses(policy, fifo) / (double)full.length;
            final double byClock = misses(policy, clock) / (double)full.length;
            System.out.printf("%s at %d pages over %d references: full %.4f, fifo-reduced (%d records) %.4f, "
                + "clock-reduced (%d records) %.4f%n", policy, SIZE, full.length, exact, fifo.length, byFifo,
                clock.length, byClock);
            assertEquals(exact, byFifo, 0.01, policy + " on the FIFO-reduced trace");
            assertEquals(exact, byClock, 0.01, policy + " on the CLOCK-reduced trace");
        }
    }
}
