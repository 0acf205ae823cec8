package io.faultline.tools;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import io.faultline.damon.Attributes;
import io.faultline.damon.ops.TraceIndex;
import io.faultline.damon.report.AccuracySweep;

/**
 * {@code faultline report accuracy --truth TRACE --attrs SPEC...}: DAMON run over the trace with
 * each choice of attributes ({@link AccuracySweep}), one line each: its heat and working set
 * errors against the trace, and its access checks per second; then the choice with the
 * smallest mean absolute working set error.
 */
final class AccuracySweepReport
{
    static final String CSV_HEADER = "attributes,aggregations,heat_error,wss_error_abs,wss_error_signed,checks_per_s,"
        + "last_sample_us,last_aggr_us";

    private AccuracySweepReport()
    {
    }

    static void run(final Path truth, final boolean skipCorrupt, final List<String> specs, final long seed,
        final Path csv, final PrintWriter out, final PrintWriter err) throws Exception
    {
        final List<Attributes> choices = new ArrayList<>();
        for (final String spec : specs)
        {
            choices.add(AttributeSpec.parse(spec));
        }
        final long start = System.nanoTime();
        final TraceIndex index = TraceIndex.read(truth, null, skipCorrupt);
        index.notes().forEach(err::println);
        final List<AccuracySweep.Trial> trials = AccuracySweep.run(index, choices, seed,
            Runtime.getRuntime().availableProcessors());
        out.printf(Locale.ROOT, "%-52s %6s %7s %9s %9s %10s %s%n", "attributes", "aggrs", "heat", "wss |err|",
            "wss err", "checks/s", "last intervals");
        for (final AccuracySweep.Trial t : trials)
        {
            out.printf(Locale.ROOT, "%-52s %6d %6.2f%% %9s %9s %,10.0f %s%n", AttributeSpec.describe(t.attributes()),
                t.report().intervals().size(), 100 * t.report().meanHeatError(), percent(t.report().meanAbsWssError()),
                signedPercent(t.report().meanWssError()), t.checksPerSecond(), intervals(t.lastAttributes()));
        }
        trials.stream().filter(t -> !Double.isNaN(t.report().meanAbsWssError()))
            .min(Comparator.comparingDouble((AccuracySweep.Trial t) -> t.report().meanAbsWssError())
                .thenComparingDouble(t -> t.report().meanHeatError()))
            .ifPresent(best -> out.printf(Locale.ROOT, "best working set: %s (%s mean absolute error)%n",
                AttributeSpec.describe(best.attributes()), percent(best.report().meanAbsWssError())));
        out.flush();
        err.printf(Locale.ROOT, "Ran %d attribute choices over %s in %.3f s%n", trials.size(), truth,
            (System.nanoTime() - start) / 1e9);
        if (csv != null)
        {
            try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8)))
            {
                writer.print(CSV_HEADER + "\n");
                for (final AccuracySweep.Trial t : trials)
                {
                    writer.print(String.format(Locale.ROOT, "\"%s\",%d,%.6f,%s,%s,%.1f,%d,%d%n",
                        AttributeSpec.describe(t.attributes()), t.report().intervals().size(), t.report().meanHeatError(),
                        number(t.report().meanAbsWssError()), number(t.report().meanWssError()), t.checksPerSecond(),
                        t.lastAttributes().sampleIntervalUs(), t.lastAttributes().aggrIntervalUs()));
                }
            }
            err.println("Wrote " + trials.size() + " attribute choices as CSV to " + csv);
        }
    }

    private static String intervals(final Attributes a)
    {
        return readable(a.sampleIntervalUs()) + "/" + readable(a.aggrIntervalUs());
    }

    /** 450140 us as "450.1ms": tuned intervals are rarely round. */
    private static String readable(final long us)
    {
        if (us >= 1_000_000)
        {
            return String.format(Locale.ROOT, "%.2fs", us / 1e6);
        }
        return us >= 1_000 ? String.format(Locale.ROOT, "%.1fms", us / 1e3) : us + "us";
    }

    private static String percent(final double value)
    {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.2f%%", 100 * value);
    }

    private static String signedPercent(final double value)
    {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%+.2f%%", 100 * value);
    }

    private static String number(final double value)
    {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.6f", value);
    }
}
