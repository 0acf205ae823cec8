package io.faultline.tools;

import io.faultline.sim.LimitException;
import io.faultline.sim.Policies;
import io.faultline.sim.PolicySpec;
import io.faultline.sim.SimulationResult;
import io.faultline.sim.Simulator;
import io.faultline.sim.report.ConsoleTable;
import io.faultline.sim.report.CsvReports;
import io.faultline.sim.report.MissRatioChart;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.SimulationRow;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceException;
import io.faultline.sim.trace.TraceInput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code faultline simulate}: replays traces through policies at several cache sizes, in
 * parallel, and reports misses as a table, CSV and a chart.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = {
        "faultline simulate [--format F] --policies P1,P2,... --sizes S1,S2,... [--csv OUT]",
        "                          [--plot OUT.png|OUT.svg] [--threads N] [--page-size B] TRACE..."},
    descriptionHeading = "%n", description = {
        "Replay traces through cache policies at several sizes: table, CSV, chart.", "",
        "Replays each trace through each policy at each cache size and prints the misses.", ""})
final class SimulateCommand implements Callable<Integer>
{
    /** The policy names, for the help text and shell completion; listed only when asked (start-up time). */
    static final class PolicyNames implements Iterable<String>
    {
        @Override
        public Iterator<String> iterator()
        {
            return Policies.names().iterator();
        }
    }

    @Option(names = "--policies", paramLabel = "P1,P2,...", completionCandidates = PolicyNames.class,
        description = {"policies, each NAME or NAME:param=value:...; known: ${COMPLETION-CANDIDATES}"})
    String policies;

    @Option(names = "--sizes", paramLabel = "S", split = ",",
        description = {"cache sizes in pages; a K, M or G suffix (KiB, MiB, GiB) means bytes, converted at the page "
            + "size: --sizes 64,1M = 64 and 256 pages of 4 KiB"})
    List<Size> sizes;

    @Option(names = "--csv", paramLabel = "OUT", description = "also write " + CsvReports.SIMULATION_HEADER)
    Path csv;

    @Option(names = "--plot", paramLabel = "OUT", description = "miss ratio against size, one line per policy; PNG or "
        + "SVG by extension")
    Path plot;

    @Option(names = "--threads", paramLabel = "N", description = "simulations run at once (default: every core, "
        + "${DEFAULT-VALUE} here)")
    int threads = Runtime.getRuntime().availableProcessors();

    @Mixin
    TraceInputOptions inputOptions;

    @Parameters(paramLabel = "TRACE", arity = "0..*", description = "trace files or directories")
    List<Path> traces = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;

    SimulateCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        this.out = out;
        this.err = err;
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws Exception
    {
        try
        {
            final TraceInput input = inputOptions.input();
            Values.atLeast("--threads", threads, 1);
            if (policies == null)
            {
                throw new CliException("missing --policies; e.g. --policies lru,clock; known policies: "
                    + String.join(", ", Policies.names()));
            }
            final List<PolicySpec> specs = parsePolicies(policies);
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
            cacheSizes(sizes, input.options().pageSizeOrDefault());

            final List<SimulationRow> rows = new ArrayList<>();
            for (final Path trace : traces)
            {
                rows.addAll(simulate(trace, input, specs, sizes));
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
        catch (final TraceException ex)
        {
            throw CliException.of(ex);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException(ex.getMessage());
        }
        catch (final LimitException ex)
        {
            throw new CliException(ex.getMessage(), ExitStatus.LIMIT);
        }
    }

    private List<SimulationRow> simulate(final Path tracePath, final TraceInput input, final List<PolicySpec> policies,
        final List<Size> sizes) throws IOException
    {
        final KeyTrace trace = input.read(tracePath, err, terminal);
        final int[] capacities = cacheSizes(sizes, trace.pageSize());
        trace.evmsWarning(capacities).ifPresent(err::println);
        final long[] keys = trace.toArray();
        err.printf(Locale.ROOT, "Simulating %d policies x %d sizes over %,d references on %d threads...%n",
            policies.size(), capacities.length, keys.length, threads);
        final long start = System.nanoTime();
        final LongAdder done = new LongAdder();
        final List<SimulationResult> results;
        try (Progress progress = Progress.start(err, terminal, "Simulating",
            (long)policies.size() * capacities.length * keys.length, done::sum))
        {
            results = Simulator.sweep(policies, capacities, keys, threads, done);
        }
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
     * Cache sizes in pages of {@code pageSize} bytes, each from 1 to the longest array, in the
     * order given; a size given twice (4096,4K at 1 KiB pages) is simulated once.
     */
    static int[] cacheSizes(final List<Size> sizes, final int pageSize)
    {
        final int[] pages = new int[sizes.size()];
        for (int i = 0; i < pages.length; i++)
        {
            pages[i] = cacheSize(sizes.get(i), pageSize, "--sizes");
        }
        return Arrays.stream(pages).distinct().toArray();
    }

    static int cacheSize(final Size size, final int pageSize, final String option)
    {
        final long pages = size.pages(pageSize, option);
        if (pages < 1 || pages > Integer.MAX_VALUE - 8)
        {
            throw new CliException(option + ": '" + size.text() + "' gives " + pages
                + " pages; a cache holds from 1 to " + (Integer.MAX_VALUE - 8) + " pages");
        }
        return (int)pages;
    }
}
