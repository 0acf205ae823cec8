package io.faultline.tools;

import io.faultline.sim.Policies;
import io.faultline.sim.PolicySpec;
import io.faultline.sim.SimulationResult;
import io.faultline.sim.Simulator;
import io.faultline.sim.report.ConsoleTable;
import io.faultline.sim.report.CsvReports;
import io.faultline.sim.report.MissRatioChart;
import io.faultline.sim.report.SimulationRow;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceException;
import io.faultline.sim.trace.TraceInput;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code faultline simulate}: replays traces through policies at several cache sizes, in
 * parallel, and reports misses as a table, CSV and a chart.
 */
public final class SimulateCommand implements Command
{
    private static final String USAGE = String.join(System.lineSeparator(),
        "usage: faultline simulate [--format F] --policies P1,P2,... --sizes S1,S2,... [--csv OUT]",
        "                          [--plot OUT.png|OUT.svg] [--threads N] [--page-size B] TRACE...",
        "",
        "Replays each trace through each policy at each cache size and prints the misses.",
        "  --policies P,...  policies, each NAME or NAME:param=value:...; known: %s",
        "  --sizes S,...     cache sizes in pages; a K, M or G suffix means bytes (KiB, MiB, GiB)",
        "                    converted at the page size: --sizes 64,1M = 64 and 256 pages of 4 KiB",
        "  --csv OUT         also write " + CsvReports.SIMULATION_HEADER,
        "  --plot OUT        miss ratio against size, one line per policy; PNG or SVG by extension",
        "  --threads N       simulations run at once (default: every core, %d here)",
        "%s");

    @Override
    public String name()
    {
        return "simulate";
    }

    @Override
    public String summary()
    {
        return "replay traces through cache policies at several sizes: table, CSV, chart";
    }

    @Override
    public int run(final List<String> args, final PrintStream out, final PrintStream err) throws Exception
    {
        final TraceInput input = new TraceInput();
        final List<Path> traces = new ArrayList<>();
        List<PolicySpec> policies = null;
        String sizes = null;
        Path csv = null;
        Path plot = null;
        int threads = Runtime.getRuntime().availableProcessors();

        final Deque<String> queue = new ArrayDeque<>(args);
        try
        {
            while (!queue.isEmpty())
            {
                final String arg = queue.poll();
                if (arg.equals("--help") || arg.equals("-h"))
                {
                    out.println(usage());
                    return 0;
                }
                if (!arg.startsWith("--"))
                {
                    traces.add(Path.of(arg));
                    continue;
                }
                final int eq = arg.indexOf('=');
                final String option = eq < 0 ? arg : arg.substring(0, eq);
                final Supplier<String> value = eq < 0 ? () -> next(queue, option) : () -> arg.substring(eq + 1);
                if (input.option(option, value))
                {
                    continue;
                }
                switch (option)
                {
                    case "--policies" -> policies = parsePolicies(value.get());
                    case "--sizes" -> sizes = value.get();
                    case "--csv" -> csv = Path.of(value.get());
                    case "--plot" -> plot = Path.of(value.get());
                    case "--threads" -> threads = positive(option, value.get());
                    default -> throw new CliException("unknown option " + option
                        + "; faultline simulate --help lists the options");
                }
            }
            if (policies == null)
            {
                throw new CliException("missing --policies; e.g. --policies lru,clock; known policies: "
                    + String.join(", ", Policies.names()));
            }
            if (sizes == null)
            {
                throw new CliException("missing --sizes; e.g. --sizes 64,256,1M (pages, or bytes with K/M/G)");
            }
            if (traces.isEmpty())
            {
                throw new CliException("missing TRACE; give one or more trace files or directories");
            }
            if (plot != null)
            {
                MissRatioChart.checkExtension(plot);
            }
            // Check the sizes before reading anything long; faultline traces may change the page size.
            parseSizes(sizes, input.options().pageSizeOrDefault());

            final List<SimulationRow> rows = new ArrayList<>();
            for (final Path trace : traces)
            {
                rows.addAll(simulate(trace, input, policies, sizes, threads, err));
            }
            ConsoleTable.print(rows, out);
            if (csv != null)
            {
                final long start = System.nanoTime();
                try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8)))
                {
                    CsvReports.writeSimulation(rows, writer);
                }
                Written.report(err, rows.size() + " results as CSV", csv, start);
            }
            if (plot != null)
            {
                final long start = System.nanoTime();
                MissRatioChart.write(plot, "Miss ratio by cache size", series(rows, traces.size() > 1));
                Written.report(err, "chart", plot, start);
            }
            return 0;
        }
        catch (final TraceException | IllegalArgumentException ex)
        {
            throw new CliException(ex.getMessage());
        }
    }

    private static List<SimulationRow> simulate(final Path tracePath, final TraceInput input,
        final List<PolicySpec> policies, final String sizeList, final int threads, final PrintStream err)
        throws IOException
    {
        final KeyTrace trace = input.read(tracePath, err);
        final int[] capacities = parseSizes(sizeList, trace.pageSize());
        final long[] keys = trace.toArray();
        err.printf(Locale.ROOT, "Simulating %d policies x %d sizes over %,d references on %d threads...%n",
            policies.size(), capacities.length, keys.length, threads);
        final long start = System.nanoTime();
        final List<SimulationResult> results = Simulator.sweep(policies, capacities, keys, threads);
        err.printf(Locale.ROOT, "Simulated %d runs in %s%n", results.size(), Written.seconds(System.nanoTime() - start));
        final String traceName = tracePath.getFileName() == null ? tracePath.toString()
            : tracePath.getFileName().toString();
        final List<SimulationRow> rows = new ArrayList<>(results.size());
        for (final SimulationResult result : results)
        {
            rows.add(new SimulationRow(traceName, result.policy(), result.capacity(), result.requests(), result.misses()));
        }
        return rows;
    }

    /** One line per policy (per trace and policy if several traces), sizes ascending. */
    private static List<MissRatioChart.Series> series(final List<SimulationRow> rows, final boolean nameTrace)
    {
        final Map<String, List<SimulationRow>> byLine = new LinkedHashMap<>();
        for (final SimulationRow row : rows)
        {
            final String name = nameTrace ? row.trace() + " " + row.policy() : row.policy();
            byLine.computeIfAbsent(name, n -> new ArrayList<>()).add(row);
        }
        final List<MissRatioChart.Series> series = new ArrayList<>();
        byLine.forEach((name, points) ->
        {
            final List<SimulationRow> sorted = new ArrayList<>(points);
            sorted.sort((a, b) -> Integer.compare(a.size(), b.size()));
            final int[] sizes = new int[sorted.size()];
            final double[] ratios = new double[sorted.size()];
            for (int i = 0; i < sorted.size(); i++)
            {
                sizes[i] = sorted.get(i).size();
                ratios[i] = sorted.get(i).missRatio();
            }
            series.add(new MissRatioChart.Series(name, sizes, ratios));
        });
        return series;
    }

    static List<PolicySpec> parsePolicies(final String list)
    {
        final List<PolicySpec> specs = new ArrayList<>();
        for (final String text : list.split(",", -1))
        {
            specs.add(PolicySpec.parse(text));
        }
        return specs;
    }

    /**
     * Cache sizes in pages from {@code 64,256,1M}: a plain number counts pages; a K, M or G
     * suffix (optionally followed by B or iB) counts bytes in powers of 1024, which must be a
     * whole number of pages of {@code pageSize} bytes.
     */
    static int[] parseSizes(final String list, final int pageSize)
    {
        final String[] parts = list.split(",", -1);
        final int[] sizes = new int[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            sizes[i] = parseSize(parts[i].trim(), pageSize, "--sizes");
        }
        return sizes;
    }

    static int parseSize(final String text, final int pageSize, final String option)
    {
        final String upper = text.toUpperCase(Locale.ROOT);
        String digits = upper;
        for (final String unit : new String[] {"IB", "B"})
        {
            if (digits.length() > 1 && digits.endsWith(unit) && "KMG".indexOf(digits.charAt(digits.length() - unit.length() - 1)) >= 0)
            {
                digits = digits.substring(0, digits.length() - unit.length());
                break;
            }
        }
        long multiplier = 0;
        if (!digits.isEmpty())
        {
            switch (digits.charAt(digits.length() - 1))
            {
                case 'K' -> multiplier = 1L << 10;
                case 'M' -> multiplier = 1L << 20;
                case 'G' -> multiplier = 1L << 30;
                default -> multiplier = 0;
            }
        }
        if (multiplier != 0)
        {
            digits = digits.substring(0, digits.length() - 1);
        }
        final long number;
        try
        {
            number = Long.parseLong(digits);
        }
        catch (final NumberFormatException ex)
        {
            throw new CliException(option + ": '" + text + "' is not a size; give pages (256) or bytes with K, M or G (1M)");
        }
        final long pages;
        if (multiplier == 0)
        {
            pages = number;
        }
        else
        {
            final long bytes;
            try
            {
                bytes = Math.multiplyExact(number, multiplier);
            }
            catch (final ArithmeticException ex)
            {
                throw new CliException(option + ": '" + text + "' is too large");
            }
            if (bytes % pageSize != 0)
            {
                throw new CliException(option + ": '" + text + "' is not a whole number of " + pageSize
                    + "-byte pages; give a multiple of the page size");
            }
            pages = bytes / pageSize;
        }
        if (pages < 1 || pages > Integer.MAX_VALUE - 8)
        {
            throw new CliException(option + ": '" + text + "' gives " + pages
                + " pages; a cache holds from 1 to " + (Integer.MAX_VALUE - 8) + " pages");
        }
        return (int)pages;
    }

    static String next(final Deque<String> queue, final String option)
    {
        final String value = queue.poll();
        if (value == null)
        {
            throw new CliException(option + " needs a value");
        }
        return value;
    }

    static int positive(final String option, final String text)
    {
        try
        {
            final int value = Integer.parseInt(text);
            if (value > 0)
            {
                return value;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // Reported below.
        }
        throw new CliException(option + " takes a positive whole number, not '" + text + "'");
    }

    private static String usage()
    {
        return String.format(Locale.ROOT, USAGE, String.join(", ", Policies.names()),
            Runtime.getRuntime().availableProcessors(), TraceInput.usage());
    }
}
