package io.faultline.tools;

import io.faultline.sim.mrc.MissRatioCurve;
import io.faultline.sim.mrc.MissRatioCurves;
import io.faultline.sim.report.CsvReports;
import io.faultline.sim.report.MissRatioChart;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceException;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceInput;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * {@code faultline mrc}: the LRU miss-ratio curve of a trace at every size in one pass, exact
 * or SHARDS-sampled, as CSV and a chart.
 */
public final class MrcCommand implements Command
{
    private static final String USAGE = String.join(System.lineSeparator(),
        "usage: faultline mrc [--format F] [--max-size N] [--sample R] [--csv OUT] [--plot OUT]",
        "                     [--per-thread] TRACE",
        "",
        "Computes LRU misses at every cache size from 1 page to the number of distinct pages in one",
        "pass over the trace (Mattson stack distances) and writes " + CsvReports.MRC_HEADER + ".",
        "  --max-size N      largest size reported, in pages (or bytes with K, M, G); default: distinct pages",
        "  --sample R        estimate with SHARDS at rate R in (0, 1], e.g. 0.1: about R of the time",
        "                    and memory; mean absolute miss-ratio error measured at R = 0.1: 0.015",
        "                    and 0.002 on traces of ~40,000 pages; unreliable below 1/R pages",
        "  --csv OUT         write the CSV here instead of to standard output",
        "  --plot OUT        miss ratio against size; PNG or SVG by extension",
        "  --per-thread      faultline traces: one curve per thread; the CSV gains a first column,",
        "                    " + CsvReports.MRC_PER_THREAD_HEADER,
        "%s");

    @Override
    public String name()
    {
        return "mrc";
    }

    @Override
    public String summary()
    {
        return "exact or sampled (SHARDS) LRU miss-ratio curve of a trace in one pass";
    }

    @Override
    public int run(final List<String> args, final PrintStream out, final PrintStream err) throws Exception
    {
        final TraceInput input = new TraceInput();
        final List<Path> traces = new ArrayList<>();
        String maxSizeText = null;
        OptionalDouble sample = OptionalDouble.empty();
        Path csv = null;
        Path plot = null;
        boolean perThread = false;

        final Deque<String> queue = new ArrayDeque<>(args);
        try
        {
            while (!queue.isEmpty())
            {
                final String arg = queue.poll();
                if (arg.equals("--help") || arg.equals("-h"))
                {
                    out.println(String.format(Locale.ROOT, USAGE, TraceInput.usage()));
                    return 0;
                }
                if (!arg.startsWith("--"))
                {
                    traces.add(Path.of(arg));
                    continue;
                }
                final int eq = arg.indexOf('=');
                final String option = eq < 0 ? arg : arg.substring(0, eq);
                final Supplier<String> value = eq < 0
                    ? () -> SimulateCommand.next(queue, option) : () -> arg.substring(eq + 1);
                if (input.option(option, value))
                {
                    continue;
                }
                switch (option)
                {
                    case "--max-size" -> maxSizeText = value.get();
                    case "--sample" -> sample = OptionalDouble.of(rate(value.get()));
                    case "--csv" -> csv = Path.of(value.get());
                    case "--plot" -> plot = Path.of(value.get());
                    case "--per-thread" -> perThread = true;
                    default -> throw new CliException("unknown option " + option + "; faultline mrc --help lists the options");
                }
            }
            if (traces.size() != 1)
            {
                throw new CliException(traces.isEmpty() ? "missing TRACE; give one trace file or directory"
                    : "one TRACE at a time, got " + traces.size() + "; run faultline mrc once per trace");
            }
            if (plot != null)
            {
                MissRatioChart.checkExtension(plot);
            }
            if (maxSizeText != null)
            {
                SimulateCommand.parseSize(maxSizeText, input.options().pageSizeOrDefault(), "--max-size");
            }
            final Path tracePath = traces.get(0);
            if (perThread && !input.formatOf(tracePath).name().equals(TraceFormats.FAULTLINE))
            {
                throw new CliException("--per-thread needs a faultline trace, which records threads; "
                    + tracePath + " is read as " + input.formatOf(tracePath).name());
            }

            final KeyTrace trace = input.read(tracePath, err);
            final OptionalInt maxSize = maxSizeText == null ? OptionalInt.empty()
                : OptionalInt.of(SimulateCommand.parseSize(maxSizeText, trace.pageSize(), "--max-size"));

            final long start = System.nanoTime();
            final List<Integer> tids = new ArrayList<>();
            final List<MissRatioCurve> curves = new ArrayList<>();
            if (perThread)
            {
                for (final Map.Entry<Integer, long[]> thread : trace.byTag().entrySet())
                {
                    tids.add(thread.getKey());
                    curves.add(curve(thread.getValue(), sample, maxSize).withLabel("tid " + thread.getKey()));
                }
            }
            else
            {
                curves.add(curve(trace.toArray(), sample, maxSize));
            }
            long distinct = 0;
            for (final MissRatioCurve curve : curves)
            {
                distinct += curve.distinct();
            }
            err.printf(Locale.ROOT, "Computed %d %s curve%s over %,d references (%s%,d distinct pages) in %s%n",
                curves.size(), sample.isPresent() ? "SHARDS" : "exact", curves.size() == 1 ? "" : "s",
                trace.size(), sample.isPresent() ? "about " : "", distinct,
                Written.seconds(System.nanoTime() - start));

            if (csv == null)
            {
                final PrintWriter writer = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
                writeCsv(perThread, tids, curves, writer);
                writer.flush();
            }
            else
            {
                final long csvStart = System.nanoTime();
                try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8)))
                {
                    writeCsv(perThread, tids, curves, writer);
                }
                Written.report(err, "miss-ratio curve as CSV", csv, csvStart);
            }
            if (plot != null)
            {
                final long plotStart = System.nanoTime();
                final List<MissRatioChart.Series> series = new ArrayList<>();
                for (final MissRatioCurve curve : curves)
                {
                    series.add(series(curve));
                }
                MissRatioChart.write(plot, "LRU miss-ratio curve of " + tracePath.getFileName(), series);
                Written.report(err, "chart", plot, plotStart);
            }
            return 0;
        }
        catch (final TraceException | IllegalArgumentException ex)
        {
            throw new CliException(ex.getMessage());
        }
    }

    private static MissRatioCurve curve(final long[] keys, final OptionalDouble sample, final OptionalInt maxSize)
    {
        return sample.isPresent() ? MissRatioCurves.shards(keys, sample.getAsDouble(), maxSize)
            : MissRatioCurves.exact(keys, maxSize);
    }

    private static void writeCsv(final boolean perThread, final List<Integer> tids, final List<MissRatioCurve> curves,
        final PrintWriter writer)
    {
        if (perThread)
        {
            CsvReports.writeMrcPerThread(tids, curves, writer);
        }
        else
        {
            CsvReports.writeMrc(curves.get(0), writer);
        }
    }

    private static MissRatioChart.Series series(final MissRatioCurve curve)
    {
        final int[] sizes = new int[curve.maxSize()];
        final double[] ratios = new double[curve.maxSize()];
        for (int size = 1; size <= curve.maxSize(); size++)
        {
            sizes[size - 1] = size;
            ratios[size - 1] = curve.missRatio(size);
        }
        return new MissRatioChart.Series(curve.label(), sizes, ratios);
    }

    private static double rate(final String text)
    {
        try
        {
            final double rate = Double.parseDouble(text);
            if (rate > 0 && rate <= 1)
            {
                return rate;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // Reported below.
        }
        throw new CliException("--sample takes a rate in (0, 1], e.g. 0.1, not '" + text + "'");
    }
}
