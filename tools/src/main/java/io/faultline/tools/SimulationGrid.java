package io.faultline.tools;

import io.faultline.sim.Policies;
import io.faultline.sim.PolicySpec;
import io.faultline.sim.report.ConsoleTable;
import io.faultline.sim.report.CsvReports;
import io.faultline.sim.report.SimulationRow;
import io.faultline.sim.trace.TraceInput;
import io.faultline.tools.chart.MissRatioChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The grid of a replay, traces x policies x sizes, and where its results go: the options that
 * {@code simulate} and {@code sweep} (the sweep module, on Spark) share, as a picocli mixin, so
 * that a grid reads the same in both and gives the same table, CSV and chart.
 */
@Command(modelTransformer = SimulationGrid.Wording.class)
public final class SimulationGrid
{
    /** What the CSV and the chart hold. */
    static final class Wording extends OptionWording
    {
        Wording()
        {
            super(new TraceInputOptions.Wording());
        }

        @Override
        protected Object[][] getContents()
        {
            return new Object[][] {
                {"csv", "also write " + CsvReports.SIMULATION_HEADER},
                {"plot", "miss ratio against size, one line per policy; PNG or SVG by extension"}};
        }
    }

    @Mixin
    PolicyGrid grid;

    @Mixin
    CsvAndPlot files;

    @Mixin
    TraceInputOptions inputOptions;

    @Parameters(paramLabel = "TRACE", arity = "0..*", description = "trace files or directories")
    List<String> traces = new ArrayList<>();

    /**
     * Checks that the grid is complete before anything long runs: the input options valid,
     * policies, sizes and traces given, the plot's extension known, the sizes in range at the
     * default page size.
     *
     * @throws CliException naming what is missing or wrong and the fix
     */
    public void check()
    {
        final TraceInput input = input();
        if (grid.policies == null)
        {
            throw new CliException("missing --policies; e.g. --policies lru,clock; known policies: "
                + String.join(", ", Policies.names()));
        }
        specs();
        if (grid.sizes == null)
        {
            throw new CliException("missing --sizes; e.g. --sizes 64,256,1M (pages, or bytes with K/M/G)");
        }
        if (traces.isEmpty())
        {
            throw new CliException("missing TRACE; give one or more trace files or directories");
        }
        files.checkPlot();
        // Faultline traces may change the page size; a size out of range at the default is so at any.
        capacities(input.options().pageSizeOrDefault());
    }

    /** The policies, in the order given. */
    public List<PolicySpec> specs()
    {
        return grid.specs();
    }

    /** The {@code --format}, {@code --page-size} and filters to read each trace with. */
    public TraceInput input()
    {
        return inputOptions.input();
    }

    /** The traces as given: paths, or for {@code sweep} also URIs of a file system Spark reads. */
    public List<String> traces()
    {
        return traces;
    }

    /**
     * The sizes in pages of {@code pageSize} bytes, each from 1 to the longest array, in the
     * order given; a size given twice (4096,4K at 1 KiB pages) is simulated once.
     */
    public int[] capacities(final int pageSize)
    {
        return grid.capacities(pageSize);
    }

    /**
     * Prints the rows as a table on {@code out} and writes the CSV and the chart if asked, each
     * with a line on {@code err}.
     */
    public void report(final List<SimulationRow> rows, final PrintStream out, final PrintStream err) throws IOException
    {
        ConsoleTable.print(rows, out);
        files.writeCsv(err, rows.size() + " results as CSV", writer -> CsvReports.writeSimulation(rows, writer));
        files.writePlot(err, plot -> MissRatioChart.write(plot, "Miss ratio by cache size", series(rows,
            traces.size() > 1)));
    }

    /** One line per policy (per trace and policy if several traces), sizes ascending. */
    static List<MissRatioChart.Series> series(final List<SimulationRow> rows, final boolean nameTrace)
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
