package io.faultline.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.faultline.sim.report.Written;
import io.faultline.tools.chart.MissRatioChart;
import picocli.CommandLine.Option;

/**
 * {@code --csv OUT} and {@code --plot OUT.png|OUT.svg}, where a replay's results go besides the
 * table: a picocli mixin of {@link SimulationGrid} (simulate, sweep), mrc and report reuse, with
 * the plot's name checked before anything long runs and each file written with one line on
 * stderr. Each command says in its help what its files hold ({@link OptionWording}, keys {@code
 * csv} and {@code plot}).
 */
final class CsvAndPlot
{
    @Option(names = "--csv", paramLabel = "OUT", descriptionKey = "csv", description = "also write the results as CSV")
    Path csv;

    @Option(names = "--plot", paramLabel = "OUT", descriptionKey = "plot",
        description = "also draw them, PNG or SVG by extension")
    Path plot;

    /** What a command writes into the CSV file. */
    interface CsvRows
    {
        void write(PrintWriter writer);
    }

    /** How a command draws its chart into the plot file. */
    interface Chart
    {
        void draw(Path file) throws IOException;
    }

    /** Refuses a plot whose name tells no format, before anything long runs. */
    void checkPlot()
    {
        if (plot != null)
        {
            MissRatioChart.checkExtension(plot);
        }
    }

    /** With --csv, writes the rows to the file and says on {@code err} what ({@code what}), where and how fast. */
    void writeCsv(final PrintStream err, final String what, final CsvRows rows) throws IOException
    {
        if (csv != null)
        {
            final long start = System.nanoTime();
            try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8)))
            {
                rows.write(writer);
            }
            Written.report(err, what, csv, start);
        }
    }

    /** With --plot, draws the chart into the file and says so on {@code err}. */
    void writePlot(final PrintStream err, final Chart chart) throws IOException
    {
        if (plot != null)
        {
            final long start = System.nanoTime();
            chart.draw(plot);
            Written.report(err, "chart", plot, start);
        }
    }
}
