package io.faultline.tools;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.faultline.damon.Attributes;
import io.faultline.damon.ops.TraceIndex;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.record.Snapshot;
import io.faultline.damon.report.Accuracy;
import io.faultline.damon.report.ExactAccesses;
import io.faultline.damon.report.Heatmap;
import io.faultline.damon.report.RegionsCsv;
import io.faultline.damon.report.SchemesCsv;
import io.faultline.damon.report.WorkingSetSize;
import io.faultline.format.TraceLayout;
import io.faultline.format.TracePack;
import io.faultline.format.TraceReader;
import io.faultline.tools.chart.HeatmapChart;
import io.faultline.tools.chart.MissRatioChart;
import io.faultline.tools.chart.WorkingSetChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code faultline report}: DAMON's results in damo's vocabulary (regions, heats, wss), from a
 * monitoring record, or exactly from a trace; and DAMON's accuracy against a trace.
 */
@Command(name = "report", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", descriptionHeading = "%n", description = ReportCommand.SUMMARY,
    usageHelpWidth = 100,
    subcommands = {ReportCommand.Regions.class, ReportCommand.Heats.class, ReportCommand.Wss.class,
        ReportCommand.AccuracyReport.class, ReportCommand.Schemes.class})
final class ReportCommand implements Callable<Integer>
{
    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "DAMON reports of a monitoring record or a trace: regions, heats, wss, accuracy, "
        + "schemes; reuse and call sites of a trace.";

    @Override
    public Integer call()
    {
        throw new CliException("missing report; give one of regions, heats, wss, accuracy, schemes, reuse, callsites (faultline report --help)");
    }

    /** A monitoring record or a trace, and the intervals a trace is cut into. */
    @Command(modelTransformer = Input.Wording.class)
    static final class Input
    {
        /** --skip-corrupt applies to a trace only. */
        static final class Wording extends OptionWording
        {
            @Override
            protected Object[][] getContents()
            {
                return new Object[][] {{"skip-corrupt", "for a trace: read past corrupt excerpts, counting them (on "
                    + "stderr)"}};
            }
        }

        @Parameters(index = "0", paramLabel = "DIR", description = "a monitoring record (faultline monitor) or a trace")
        Path dir;

        @Option(names = "--sample", paramLabel = "T", converter = Durations.class,
            description = "for a trace: sampling interval of the exact counts (default 5ms)")
        Long sampleUs;

        @Option(names = "--aggr", paramLabel = "T", converter = Durations.class,
            description = "for a trace: aggregation interval (default 100ms)")
        Long aggrUs;

        @Option(names = "--mapping", paramLabel = "NAME",
            description = "for a trace: only the references in this mapping ([heap], [stack], [stack:TID], [anon], a "
                + "file's name; faultline info lists them)")
        String mapping;

        @Mixin
        SkipCorrupt corrupt;

        /** The snapshots; what reading a trace had to say goes to {@code err}. */
        List<Snapshot> snapshots(final PrintWriter err)
        {
            if (mapping != null && MonitorRecordReader.isRecord(dir))
            {
                throw new CliException("--mapping applies to traces; " + dir + " is a monitoring record, whose regions "
                    + "have no names; give the trace it was made from");
            }
            final Monitored monitored = read(dir, sampleUs, aggrUs, "--sample and --aggr", mapping, corrupt.skip);
            monitored.notes().forEach(err::println);
            return monitored.snapshots();
        }

        /**
         * What a monitoring record holds, or the exact regions of a trace cut into intervals, with
         * what reading the trace had to say ({@link TraceIndex#notes}).
         */
        record Monitored(List<Snapshot> snapshots, Attributes attributes, List<String> notes)
        {
        }

        /**
         * The snapshots of {@code dir}: a monitoring record's own, or a trace's exact ones at
         * {@code sampleUs} and {@code aggrUs} (default 5 ms and 100 ms), which only a trace takes
         * ({@code options} names them in the error), of the references in {@code mapping} only
         * (null: all), reading past corrupt excerpts if {@code skipCorrupt}.
         */
        static Monitored read(final Path dir, final Long sampleUs, final Long aggrUs, final String options,
            final String mapping, final boolean skipCorrupt)
        {
            if (MonitorRecordReader.isRecord(dir))
            {
                final MonitorRecordReader reader = MonitorRecordReader.open(dir);
                if (sampleUs != null || aggrUs != null)
                {
                    final Attributes a = reader.attributes();
                    throw new CliException(options + " apply to traces; " + dir + " is a monitoring record made"
                        + " with sampling " + Durations.format(a.sampleIntervalUs()) + " and aggregation "
                        + Durations.format(a.aggrIntervalUs()) + "; leave them out");
                }
                return new Monitored(reader.snapshots(), reader.attributes(), List.of());
            }
            if (!Files.isRegularFile(dir.resolve(TraceLayout.HEADER_FILE)) && !TracePack.isPack(dir))
            {
                throw new CliException(dir + " is neither a monitoring record nor a faultline trace (no "
                    + TraceLayout.HEADER_FILE + "); give one written by faultline monitor or faultline record");
            }
            final long sample = sampleUs == null ? Attributes.DEFAULTS.sampleIntervalUs() : sampleUs;
            final long aggr = aggrUs == null ? Attributes.DEFAULTS.aggrIntervalUs() : aggrUs;
            if (sample <= 0 || aggr < sample)
            {
                throw new CliException("the aggregation interval (" + Durations.format(aggr) + ") must be at least the"
                    + " sampling interval (" + Durations.format(sample) + "), both positive");
            }
            final Attributes attrs = new Attributes(sample, aggr, Attributes.DEFAULTS.opsUpdateIntervalUs(),
                Attributes.DEFAULTS.minNrRegions(), Attributes.DEFAULTS.maxNrRegions());
            final TraceIndex index = TraceIndex.read(dir, mapping, skipCorrupt);
            return new Monitored(new ExactAccesses(index, sample, aggr).snapshots(), attrs, index.notes());
        }
    }

    @Command(name = "regions", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        synopsisHeading = "usage: ", descriptionHeading = "%n",
        description = "Every region of every aggregation as CSV: " + RegionsCsv.HEADER + ".")
    static final class Regions implements Callable<Integer>
    {

        @Spec
        CommandSpec spec;

        @Mixin
        Input input;

        @Override
        public Integer call()
        {
            final PrintWriter out = spec.commandLine().getOut();
            RegionsCsv.write(input.snapshots(spec.commandLine().getErr()), out);
            out.flush();
            return 0;
        }
    }

    @Command(name = "heats", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        synopsisHeading = "usage: ", descriptionHeading = "%n",
        description = "Time x address heatmap of access frequency (CSV time_ns,address,heat), as damo report heats.")
    static final class Heats implements Callable<Integer>
    {

        @Spec
        CommandSpec spec;

        @Mixin
        Input input;

        @Option(names = "--resolution", arity = "2", paramLabel = "N",
            description = "pixels across time and across addresses (default 100 100)")
        int[] resolution = {100, 100};

        @Option(names = "--pid", paramLabel = "PID", description = "the process to draw (default: the first target)")
        Long pid;

        @Option(names = "--address-range", arity = "2", paramLabel = "ADDR",
            description = "START END addresses to draw (default: the biggest stretch the regions cover without a gap)")
        long[] addressRange;

        @Option(names = "--plot", paramLabel = "FILE", description = "also draw it, PNG or SVG by extension")
        Path plot;

        @Override
        public Integer call() throws Exception
        {
            if (resolution.length != 2 || resolution[0] <= 0 || resolution[1] <= 0)
            {
                throw new CliException("--resolution takes two positive numbers of pixels, e.g. --resolution 100 100");
            }
            if (plot != null)
            {
                MissRatioChart.checkExtension(plot);
            }
            final List<Snapshot> snapshots = input.snapshots(spec.commandLine().getErr());
            if (snapshots.isEmpty() || snapshots.get(0).targets().isEmpty())
            {
                throw new CliException(input.dir + " holds no complete aggregation; nothing to draw");
            }
            final long target = pid != null ? pid : snapshots.get(0).targets().get(0).pid();
            final long[] range = addressRange != null ? addressRange : Heatmap.defaultAddressRange(snapshots, target);
            if (range == null || range[1] <= range[0])
            {
                throw new CliException("no regions of process " + target + " in " + input.dir
                    + (addressRange != null ? " (or an empty --address-range)" : "") + "; give another --pid");
            }
            final Heatmap.Grid grid = Heatmap.compute(snapshots, target, range[0], range[1], resolution[0], resolution[1]);
            final PrintWriter out = spec.commandLine().getOut();
            final StringBuilder text = new StringBuilder("time_ns,address,heat\n");
            for (int t = 0; t < grid.timeNs().length; t++)
            {
                for (int a = 0; a < grid.address().length; a++)
                {
                    text.append(grid.timeNs()[t]).append(',').append(grid.address()[a]).append(',')
                        .append(String.format(Locale.ROOT, "%.3f", grid.heat()[t][a])).append('\n');
                }
            }
            out.print(text);
            out.flush();
            if (plot != null)
            {
                HeatmapChart.write(plot, "Access frequency of process " + target + " (" + input.dir.getFileName()
                    + "); colour: nr_accesses per aggregation", grid);
                spec.commandLine().getErr().println("Wrote heatmap to " + plot);
            }
            return 0;
        }
    }

    @Command(name = "wss", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        synopsisHeading = "usage: ", descriptionHeading = "%n",
        description = "Working set size: percentiles over the aggregations (or each aggregation's, --over-time).")
    static final class Wss implements Callable<Integer>
    {

        @Spec
        CommandSpec spec;

        @Mixin
        Input input;

        @Option(names = "--pid", paramLabel = "PID", description = "one process (default: all targets together)")
        Long pid;

        @Option(names = "--over-time", description = "print aggregation,time_ns,wss_bytes instead of percentiles")
        boolean overTime;

        @Option(names = "--plot", paramLabel = "FILE", description = "draw the size over time, PNG or SVG by extension")
        Path plot;

        @Override
        public Integer call() throws Exception
        {
            if (plot != null)
            {
                MissRatioChart.checkExtension(plot);
            }
            final List<Snapshot> snapshots = input.snapshots(spec.commandLine().getErr());
            final long[] sizes = WorkingSetSize.overTime(snapshots, pid == null ? -1 : pid);
            final StringBuilder text = new StringBuilder();
            if (overTime)
            {
                text.append("aggregation,time_ns,wss_bytes\n");
                for (int i = 0; i < sizes.length; i++)
                {
                    text.append(snapshots.get(i).aggregation()).append(',').append(snapshots.get(i).endNs()).append(',')
                        .append(sizes[i]).append('\n');
                }
            }
            else
            {
                text.append("percentile,wss_bytes\n");
                for (final int p : WorkingSetSize.PERCENTILES)
                {
                    text.append(p).append(',').append(WorkingSetSize.percentile(sizes, p)).append('\n');
                }
            }
            final PrintWriter out = spec.commandLine().getOut();
            out.print(text);
            out.flush();
            if (plot != null)
            {
                final long[] ends = snapshots.stream().mapToLong(Snapshot::endNs).toArray();
                WorkingSetChart.write(plot, "Working set size (" + input.dir.getFileName() + ")", ends, sizes);
                spec.commandLine().getErr().println("Wrote working set chart to " + plot);
            }
            return 0;
        }
    }

    @Command(name = "schemes", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        synopsisHeading = "usage: ", descriptionHeading = "%n",
        description = "Every DAMOS scheme's statistics at every aggregation as CSV: " + SchemesCsv.HEADER + ".")
    static final class Schemes implements Callable<Integer>
    {

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "DIR", description = "a monitoring record made with --scheme or --schemes")
        Path dir;

        @Override
        public Integer call()
        {
            if (!MonitorRecordReader.isRecord(dir))
            {
                throw new CliException(dir + " is not a monitoring record; give one written by faultline monitor with"
                    + " --scheme or --schemes");
            }
            final MonitorRecordReader reader = AccuracyReport.openRecord(dir);
            final List<Snapshot> snapshots = reader.snapshots();
            if (reader.header().get(io.faultline.damon.record.MonitorRecordLayout.SCHEME_PREFIX + 0) == null)
            {
                throw new CliException(dir + " was monitored without schemes; monitor again with --scheme SPEC");
            }
            final PrintWriter out = spec.commandLine().getOut();
            SchemesCsv.write(snapshots, out);
            out.flush();
            return 0;
        }
    }

    @Command(name = "accuracy", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        synopsisHeading = "usage: ", descriptionHeading = "%n",
        description = {"DAMON's heat and working set size errors against the exact ones of a complete trace: of a "
            + "monitoring record (--monitor), or of DAMON run over the trace with each --attrs choice."},
        modelTransformer = AccuracyReport.Wording.class)
    static final class AccuracyReport implements Callable<Integer>
    {
        /** --skip-corrupt reads the trace (--truth), not the record. */
        static final class Wording extends OptionWording
        {
            @Override
            protected Object[][] getContents()
            {
                return new Object[][] {{"skip-corrupt", "read past corrupt excerpts of the trace, counting them (on "
                    + "stderr)"}};
            }
        }

        @Spec
        CommandSpec spec;

        @Option(names = "--monitor", paramLabel = "DIR", description = "the monitoring record")
        Path monitor;

        @Option(names = "--attrs", paramLabel = "SPEC", description = {"run DAMON over the trace with these attributes"
            + " instead of reading a record (repeatable, one line each): " + AttributeSpec.GRAMMAR_HELP})
        List<String> attrs;

        @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
            description = "with --attrs: seed of the random sampling addresses and split sizes (default ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--truth", paramLabel = "TRACE", required = true,
            description = "the trace of the same run (for --from-trace records: the trace monitored)")
        Path truth;

        @Mixin
        SkipCorrupt corrupt;

        @Option(names = "--csv", paramLabel = "FILE",
            description = {"per aggregation: aggregation,time_ns,true_wss_bytes,damon_wss_bytes,wss_error,heat_error;",
                "with --attrs, per choice: " + AccuracySweepReport.CSV_HEADER})
        Path csv;

        @Override
        public Integer call() throws Exception
        {
            if ((monitor == null) == (attrs == null))
            {
                throw new CliException(monitor == null ? "give --monitor DIR (a monitoring record) or --attrs SPEC (run "
                    + "DAMON over the trace)" : "give --monitor or --attrs, not both");
            }
            if (MonitorRecordReader.isRecord(truth))
            {
                throw new CliException(truth + " is a monitoring record, not a trace; --truth takes the trace written"
                    + " by faultline record");
            }
            if (attrs != null)
            {
                TraceReader.open(truth).close();
                AccuracySweepReport.run(truth, corrupt.skip, attrs, seed, csv, spec.commandLine().getOut(),
                    spec.commandLine().getErr());
                return 0;
            }
            final MonitorRecordReader record = openRecord(monitor);
            TraceReader.open(truth).close();
            final Attributes attrs = record.attributes();
            final TraceIndex index = TraceIndex.read(truth, null, corrupt.skip);
            index.notes().forEach(spec.commandLine().getErr()::println);
            final ExactAccesses exact = attrs.intervalsGoal().enabled()
                ? ExactAccesses.tuned(index, attrs.samplesPerAggregation())
                : new ExactAccesses(index, attrs.sampleIntervalUs(), attrs.aggrIntervalUs());
            final Accuracy.Report report = Accuracy.compare(record.snapshots(), exact);
            final PrintWriter out = spec.commandLine().getOut();
            final long withWss = report.intervals().stream().filter(i -> i.trueWssBytes() > 0).count();
            out.printf(Locale.ROOT, "aggregations  %d of %s (sampling %s%s)%n", report.intervals().size(),
                Durations.format(attrs.aggrIntervalUs()), Durations.format(attrs.sampleIntervalUs()),
                attrs.intervalsGoal().enabled() ? ", at the start: tuned" : "");
            out.printf(Locale.ROOT, "heat error    %.2f%% of the largest frequency (mean absolute, mean over"
                + " aggregations)%n", 100 * report.meanHeatError());
            out.printf(Locale.ROOT, "wss error     %s mean absolute, %s mean signed (over %d aggregations with a"
                + " working set)%n", percent(report.meanAbsWssError()), percent(report.meanWssError()), withWss);
            out.flush();
            if (csv != null)
            {
                try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8)))
                {
                    writer.print("aggregation,time_ns,true_wss_bytes,damon_wss_bytes,wss_error,heat_error\n");
                    for (final Accuracy.Interval i : report.intervals())
                    {
                        writer.print(i.aggregation() + "," + i.endNs() + "," + i.trueWssBytes() + "," + i.damonWssBytes()
                            + "," + (Double.isNaN(i.wssError()) ? "" : String.format(Locale.ROOT, "%.6f", i.wssError()))
                            + "," + String.format(Locale.ROOT, "%.6f", i.heatError()) + "\n");
                    }
                }
                spec.commandLine().getErr().println("Wrote " + report.intervals().size() + " aggregations as CSV to "
                    + csv);
            }
            return 0;
        }

        private static String percent(final double value)
        {
            return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.2f%%", 100 * value);
        }

        static MonitorRecordReader openRecord(final Path dir)
        {
            try
            {
                return MonitorRecordReader.open(dir);
            }
            catch (final io.faultline.format.TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
        }
    }
}
