package io.faultline.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;

/**
 * What a trace's exact times and addresses carry at least (BENCHMARKS.md, "Compact traces"):
 * the empirical order-0 entropy (Shannon) of a reference's time less its process's previous
 * item's, of an eviction's time likewise, and of a reference's offset in its page, and what they
 * add up to in bytes a reference. No coder of these values one at a time, each from its own
 * distribution, does better; a trace that keeps them exact cannot be smaller than that, however
 * it is compressed (a coder that models them on each other can, by their mutual information).
 *
 * <pre>java -cp bench/target/benchmarks.jar io.faultline.bench.TraceEntropy TRACE...</pre>
 */
public final class TraceEntropy
{
    private TraceEntropy()
    {
    }

    public static void main(final String[] args)
    {
        System.out.println("trace,references,evictions,h_reference_dt_bits,h_eviction_dt_bits,h_offset_bits,bytes_per_ref");
        for (final String arg : args)
        {
            final Map<Long, Long> referenceDt = new HashMap<>();
            final Map<Long, Long> evictionDt = new HashMap<>();
            final Map<Long, Long> offsets = new HashMap<>();
            final Map<Integer, long[]> last = new HashMap<>();
            final long[] counts = new long[2];
            try (TraceReader reader = TraceReader.open(Path.of(arg)))
            {
                reader.forEach(new TraceVisitor()
                {
                    @Override
                    public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                        final long address, final boolean write)
                    {
                        final long[] previous = last.computeIfAbsent(pid, p -> new long[1]);
                        referenceDt.merge(timeNs - previous[0], 1L, Long::sum);
                        previous[0] = timeNs;
                        offsets.merge(address & 4095, 1L, Long::sum);
                        counts[0]++;
                    }

                    @Override
                    public void onEvent(final TraceEvent event)
                    {
                        final long[] previous = last.computeIfAbsent(event.pid(), p -> new long[1]);
                        if (event.type() == EventType.EVICT)
                        {
                            evictionDt.merge(event.timeNs() - previous[0], 1L, Long::sum);
                            counts[1]++;
                        }
                        previous[0] = event.timeNs();
                    }
                });
            }
            final double hr = entropy(referenceDt, counts[0]);
            final double he = entropy(evictionDt, counts[1]);
            final double ho = entropy(offsets, counts[0]);
            System.out.printf(Locale.ROOT, "%s,%d,%d,%.2f,%.2f,%.2f,%.2f%n", Path.of(arg).getFileName(), counts[0], counts[1],
                hr, he, ho, (hr * counts[0] + he * counts[1] + ho * counts[0]) / 8 / counts[0]);
        }
    }

    private static double entropy(final Map<Long, Long> histogram, final long n)
    {
        double h = 0;
        for (final long c : histogram.values())
        {
            final double p = c / (double)n;
            h -= p * Math.log(p) / Math.log(2);
        }
        return h;
    }
}
