package io.faultline.tools;

import io.faultline.sim.PolicySpec;
import io.faultline.sim.SimulationResult;
import io.faultline.sim.Simulator;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.SimulationRow;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceInput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
        SimulateCommand.SUMMARY, "",
        "Replays each trace through each policy at each cache size and prints the misses.", ""})
final class SimulateCommand extends ConsoleCommand
{
    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "Replay traces through cache policies at several sizes: table, CSV, chart.";

    @Mixin
    SimulationGrid grid;

    @Option(names = "--threads", paramLabel = "N", description = "simulations run at once (default: every core, "
        + "${DEFAULT-VALUE} here); at least 1")
    int threads = Runtime.getRuntime().availableProcessors();

    SimulateCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        super(out, err, terminal);
    }

    @Override
    public Integer call() throws Exception
    {
        Values.atLeast("--threads", threads, 1);
        grid.check();
        final TraceInput input = grid.input();
        final List<PolicySpec> specs = grid.specs();
        final List<SimulationRow> rows = new ArrayList<>();
        for (final String trace : grid.traces())
        {
            rows.addAll(simulate(Path.of(trace), input, specs));
        }
        grid.report(rows, out, err);
        return 0;
    }

    private List<SimulationRow> simulate(final Path tracePath, final TraceInput input, final List<PolicySpec> policies)
    {
        final KeyTrace trace = input.read(tracePath, err, terminal);
        final int[] capacities = grid.capacities(trace.pageSize());
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
}
