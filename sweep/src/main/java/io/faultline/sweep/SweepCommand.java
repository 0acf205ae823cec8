package io.faultline.sweep;

import io.faultline.sim.PolicySpec;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.SimulationRow;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.TraceInput;
import io.faultline.sweep.grid.Cell;
import io.faultline.sweep.grid.CellResult;
import io.faultline.sweep.grid.CellTask;
import io.faultline.sweep.traces.StagedTrace;
import io.faultline.sweep.traces.Staging;
import io.faultline.tools.CliException;
import io.faultline.tools.ConsoleCommand;
import io.faultline.tools.Main;
import io.faultline.tools.SimulationGrid;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * {@code faultline sweep}: simulate's grid of traces x policies x sizes, each point a Spark task,
 * on this machine's cores ({@code local[*]}) or a cluster ({@code --master spark://HOST:7077},
 * or whatever spark-submit gives). The grid, the table, the CSV and the chart are simulate's
 * ({@link SimulationGrid}); the replays are tools' simulator. Traces reach executors as staged
 * {@link io.faultline.sweep.traces.KeysFile keys files}.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = {
    "faultline sweep [--master URL] [--conf K=V]... --policies P1,P2,... --sizes S1,S2,... [--minisim R]",
    "                [--csv OUT] [--parquet DIR] [--plot OUT.png|OUT.svg] [--stage DIR [--stage-only]]",
    "                [--format F] [--page-size B] TRACE..."},
    descriptionHeading = "%n", description = {
        Main.SWEEP_SUMMARY, "",
        "Each (trace, policy, size) is one task; a task that fails names its cell and the others go on.",
        "Traces of any format are read here and staged as keys files (compressed keys) that every task",
        "streams; a staged trace may also be given directly, local or at a Hadoop URI (file:, hdfs://).", ""})
final class SweepCommand extends ConsoleCommand
{
    @Mixin
    SimulationGrid grid;

    @Option(names = "--master", paramLabel = "URL", description = {"Spark master: local[*] (default: every core "
        + "here), local[N], spark://HOST:7077, yarn, k8s://...; under spark-submit, its own"})
    String master;

    @Option(names = "--conf", paramLabel = "K=V", description = "a Spark setting, as spark-submit --conf "
        + "(spark.executor.memory=4g); repeatable")
    List<String> conf = new ArrayList<>();

    @Option(names = "--parquet", paramLabel = "DIR", description = "also write the results as Parquet (a directory; "
        + "any Hadoop URI)")
    String parquet;

    @Option(names = "--minisim", paramLabel = "R", description = {"mini-simulations (MINISIM): each size replayed on "
        + "a hash sample of the keys at rate R (0 < R <= 1) with the cache scaled by R; about R of the cost, "
        + "unresolved below 1/R pages"})
    Double minisim;

    @Option(names = "--stage", paramLabel = "DIR", description = {"write staged traces to DIR (a path or a Hadoop "
        + "URI every executor reads) and keep them; default: a temporary directory here, shipped to executors "
        + "with the job"})
    String stage;

    @Option(names = "--stage-only", description = "stage the traces in --stage DIR and stop")
    boolean stageOnly;

    SweepCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        super(out, err, terminal);
    }

    @Override
    public Integer call() throws Exception
    {
        grid.check();
        final List<PolicySpec> specs = grid.specs();
        final double rate = minisim == null ? 0 : minisim;
        if (minisim != null && !(rate > 0 && rate <= 1))
        {
            throw new CliException("--minisim: " + minisim + " is not a sampling rate; give 0 < R <= 1, e.g. 0.1");
        }
        if (stageOnly && stage == null)
        {
            throw new CliException("--stage-only needs --stage DIR, where the staged traces go");
        }
        final SparkConf sparkConf = sparkConf();
        final String masterUrl = sparkConf.get("spark.master");
        final boolean local = masterUrl.startsWith("local");
        final java.nio.file.Path temporary = stage == null ? Staging.temporaryDirectory() : null;
        try
        {
            return sweep(specs, rate, sparkConf, local, temporary);
        }
        finally
        {
            if (temporary != null)
            {
                deleteTree(temporary);
            }
        }
    }

    private int sweep(final List<PolicySpec> specs, final double rate, final SparkConf sparkConf, final boolean local,
        final java.nio.file.Path temporary) throws IOException
    {
        // Traces first, without Spark: a bad trace fails before Spark's start-up is paid for.
        final String stageDir = temporary != null ? temporary.toUri().toString()
            : Staging.isUri(stage) ? stage : java.nio.file.Path.of(stage).toAbsolutePath().toUri().toString();
        final Staging staging = new Staging(grid.input(), stageDir, hadoopConf(sparkConf), err, terminal);
        final long stageStart = System.nanoTime();
        final List<StagedTrace> traces = new ArrayList<>();
        final List<Boolean> ship = new ArrayList<>();
        for (final String argument : grid.traces())
        {
            final StagedTrace trace = staging.stage(argument, grid::capacities, warning ->
            {
                if (warning != null)
                {
                    err.println(warning);
                }
            });
            traces.add(trace);
            // Executors elsewhere cannot read this machine's files: ship them with the job,
            // unless they are staged where every executor reads (--stage), or given as a URI.
            ship.add(!local && (staging.wrote(trace) ? stage == null : !Staging.isUri(argument)));
        }
        err.printf(Locale.ROOT, "Staged %d traces in %s%n", traces.size(), Written.seconds(System.nanoTime()
            - stageStart));
        if (stageOnly)
        {
            return 0;
        }

        final long sparkStart = System.nanoTime();
        final JavaSparkContext sc = start(sparkConf);
        try
        {
            if (sc.sc().isStopped())
            {
                throw stopped(sc);
            }
            err.printf(Locale.ROOT, "Started Spark (%s, %d task slots) in %s%n", sc.master(), sc.defaultParallelism(),
                Written.seconds(System.nanoTime() - sparkStart));
            final List<Cell> cells = new ArrayList<>();
            final List<Long> cellReferences = new ArrayList<>();
            for (int t = 0; t < traces.size(); t++)
            {
                final StagedTrace trace = traces.get(t);
                if (ship.get(t))
                {
                    sc.addFile(trace.location());
                    traces.set(t, new StagedTrace(trace.name(), new Path(trace.location()).getName(), true,
                        trace.references(), trace.pageSize()));
                }
                for (final PolicySpec spec : specs)
                {
                    for (final int size : grid.capacities(trace.pageSize()))
                    {
                        cells.add(new Cell(t, spec.label(), size, rate));
                        cellReferences.add(trace.references());
                    }
                }
            }
            try
            {
                return run(sc, traces, cells, cellReferences, rate);
            }
            catch (final Exception ex)
            {
                // Spark stopped the application under the job (a master that never answered, as
                // it gives up after three tries of 20 s): the job's error would only say it was cut short.
                if (sc.sc().isStopped())
                {
                    throw stopped(sc);
                }
                throw ex;
            }
        }
        finally
        {
            sc.stop();
        }
    }

    private static CliException stopped(final JavaSparkContext sc)
    {
        return new CliException("Spark stopped the application (its error is above); is the master at " + sc.master()
            + " running and reachable?");
    }

    /** Hadoop's settings as Spark would give them: its defaults, and spark.hadoop.* from --conf. */
    private static org.apache.hadoop.conf.Configuration hadoopConf(final SparkConf sparkConf)
    {
        final org.apache.hadoop.conf.Configuration hadoop = new org.apache.hadoop.conf.Configuration();
        for (final scala.Tuple2<String, String> setting : sparkConf.getAllWithPrefix("spark.hadoop."))
        {
            hadoop.set(setting._1(), setting._2());
        }
        return hadoop;
    }

    private int run(final JavaSparkContext sc, final List<StagedTrace> traces,
        final List<Cell> cells, final List<Long> cellReferences, final double rate) throws IOException
    {
        final long total = cellReferences.stream().mapToLong(Long::longValue).sum();
        err.printf(Locale.ROOT, "Sweeping %d cells (%d traces) over %,d references%s as %d Spark tasks...%n",
            cells.size(), traces.size(), total, rate > 0 ? " by MINISIM at rate " + rate : "", cells.size());
        final LongAdder done = new LongAdder();
        final SparkListener progressListener = new SparkListener()
        {
            private final BitSet finished = new BitSet();

            @Override
            public synchronized void onTaskEnd(final SparkListenerTaskEnd end)
            {
                // One partition per cell: the task's index is its cell's.
                final int index = end.taskInfo().index();
                if (end.taskInfo().successful() && index < cellReferences.size() && !finished.get(index))
                {
                    finished.set(index);
                    done.add(cellReferences.get(index));
                }
            }
        };
        sc.sc().addSparkListener(progressListener);
        final long start = System.nanoTime();
        final List<CellResult> results;
        try (Progress progress = Progress.start(err, terminal, "Sweeping", total, done::sum))
        {
            results = sc.parallelize(cells, Math.max(1, cells.size())).map(new CellTask(traces)).collect();
        }
        finally
        {
            sc.sc().removeSparkListener(progressListener);
        }
        final long elapsed = System.nanoTime() - start;
        long readNanos = 0;
        long runNanos = 0;
        final List<SimulationRow> rows = new ArrayList<>();
        int failed = 0;
        for (int i = 0; i < cells.size(); i++)
        {
            final Cell cell = cells.get(i);
            final CellResult result = results.get(i);
            readNanos += result.readNanos();
            runNanos += result.runNanos();
            final String trace = traces.get(cell.trace()).name();
            if (result.error() != null)
            {
                failed++;
                err.printf(Locale.ROOT, "sweep: cell failed: trace %s, policy %s, size %d: %s%n", trace, cell.policy(),
                    cell.size(), result.error());
                continue;
            }
            rows.add(new SimulationRow(trace, cell.policy(), cell.size(), result.requests(), result.misses()));
        }
        err.printf(Locale.ROOT, "Swept %d cells in %s (tasks: %s reading traces, %s replaying)%n", cells.size(),
            Written.seconds(elapsed), Written.seconds(readNanos), Written.seconds(runNanos));
        grid.report(rows, out, err);
        if (parquet != null)
        {
            writeParquet(sc, rows);
        }
        if (failed > 0)
        {
            err.printf(Locale.ROOT, "sweep: %d of %d cells failed (named above); the others are reported%n", failed,
                cells.size());
            return 1;
        }
        return 0;
    }

    /** Through Spark SQL, whose session is made only here: it costs seconds of start-up a sweep need not pay. */
    private void writeParquet(final JavaSparkContext sc, final List<SimulationRow> rows)
    {
        final SparkSession spark = SparkSession.builder().sparkContext(sc.sc()).getOrCreate();
        final long start = System.nanoTime();
        final StructType schema = new StructType()
            .add("trace", DataTypes.StringType, false)
            .add("policy", DataTypes.StringType, false)
            .add("size", DataTypes.IntegerType, false)
            .add("requests", DataTypes.LongType, false)
            .add("misses", DataTypes.LongType, false)
            .add("miss_ratio", DataTypes.DoubleType, false);
        final List<Row> data = new ArrayList<>(rows.size());
        for (final SimulationRow row : rows)
        {
            data.add(RowFactory.create(row.trace(), row.policy(), row.size(), row.requests(), row.misses(),
                row.missRatio()));
        }
        final String target = Staging.isUri(parquet) ? parquet
            : java.nio.file.Path.of(parquet).toAbsolutePath().toUri().toString();
        // One file: a sweep's results are small; one part file is what a reader expects to find.
        spark.createDataFrame(data, schema).coalesce(1).write().mode("overwrite").parquet(target);
        err.printf(Locale.ROOT, "Wrote %d results as Parquet to %s in %s%n", rows.size(), parquet,
            Written.seconds(System.nanoTime() - start));
    }

    /** Spark's settings: ours, then the user's --conf, then the master. */
    private SparkConf sparkConf()
    {
        // loadDefaults: spark-submit passes its settings (spark.master, spark.jars) as system properties.
        final SparkConf sparkConf = new SparkConf(true)
            .setIfMissing("spark.app.name", "faultline sweep")
            // The sweep draws its own progress line; Spark's would fight it for the terminal.
            .setIfMissing("spark.ui.showConsoleProgress", "false")
            // No web UI unless asked (--conf spark.ui.enabled=true): it costs start-up time and a port.
            .setIfMissing("spark.ui.enabled", "false");
        for (final String setting : conf)
        {
            final int eq = setting.indexOf('=');
            if (eq <= 0)
            {
                throw new CliException("--conf: '" + setting + "' is not KEY=VALUE; e.g. --conf spark.executor.memory=4g");
            }
            sparkConf.set(setting.substring(0, eq).trim(), setting.substring(eq + 1).trim());
        }
        if (master != null)
        {
            sparkConf.setMaster(master);
        }
        else if (!sparkConf.contains("spark.master"))
        {
            sparkConf.setMaster("local[*]");
        }
        if (!sparkConf.get("spark.master").startsWith("local") && !sparkConf.contains("spark.jars")
            && !sparkConf.contains("spark.executor.extraClassPath"))
        {
            shipOurClasses(sparkConf);
        }
        return sparkConf;
    }

    /**
     * Executors of a cluster need this module's classes and tools': the application jar if we
     * run from it (faultline-sweep.jar), else (a build tree, as in tests) this JVM's class path,
     * which executors on this machine read.
     */
    private static void shipOurClasses(final SparkConf sparkConf)
    {
        try
        {
            final File code = new File(SweepCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (code.isFile())
            {
                sparkConf.set("spark.jars", code.getAbsolutePath());
            }
            else
            {
                sparkConf.set("spark.executor.extraClassPath", System.getProperty("java.class.path"));
            }
        }
        catch (final URISyntaxException | SecurityException ex)
        {
            throw new CliException("cannot tell where the sweep's classes are (" + ex.getMessage()
                + "); give them to executors with --conf spark.jars=faultline-sweep.jar");
        }
    }

    private JavaSparkContext start(final SparkConf sparkConf)
    {
        try
        {
            final JavaSparkContext sc = new JavaSparkContext(sparkConf);
            // Under spark-submit our log4j2.properties is not the configuration log4j found, and
            // Spark's defaults print INFO lines by the dozen for each task: quiet from here on,
            // unless the user chose a configuration.
            if (System.getProperty("log4j2.configurationFile") == null)
            {
                sc.setLogLevel("ERROR");
            }
            return sc;
        }
        catch (final Exception ex)
        {
            // SparkException is a checked exception in Java's terms: a bad master URL, a cluster that refused us.
            final String message = ex.getMessage() == null ? ex.getClass().getSimpleName()
                : ex.getMessage().lines().findFirst().orElse("");
            throw new CliException("cannot start Spark with master " + sparkConf.get("spark.master") + ": " + message);
        }
    }

    private static void deleteTree(final java.nio.file.Path root)
    {
        try (Stream<java.nio.file.Path> paths = Files.walk(root))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path ->
            {
                try
                {
                    Files.deleteIfExists(path);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            });
        }
        catch (final IOException | UncheckedIOException ex)
        {
            // A temporary directory left behind is no reason to fail a sweep that worked.
        }
    }
}
