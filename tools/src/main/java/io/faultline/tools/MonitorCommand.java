package io.faultline.tools;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.faultline.damon.Attributes;
import io.faultline.damon.ops.TraceMonitor;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.schemes.FreeMemRate;
import io.faultline.damon.schemes.Scheme;
import io.faultline.damon.schemes.SchemeStats;
import io.faultline.damon.schemes.Watermarks;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code faultline monitor}: DAMON over a program's memory, every aggregation into a monitoring
 * record (trace-format/MONITOR-FORMAT.md). For now from a recorded trace, with the {@code trace}
 * operations set; a live program needs the {@code vaddr} set, which needs the agent's access checks.
 */
@Command(name = "monitor", mixinStandardHelpOptions = true, versionProvider = Main.Version.class, description = "DAMON data access monitoring of a recorded trace into a monitoring record",
    sortOptions = false, usageHelpWidth = 100,
    footer = {"", "Defaults are the kernel's (damon_new_ctx), the update interval damo's. Reports: faultline report.",
        "",
        "Schemes (DAMOS), applied at the end of every aggregation (or apply_interval), as KEY=VALUE fields:",
        "  action=ACTION          willneed, cold, pageout, hugepage, nohugepage, lru_prio, lru_deprio,",
        "                         migrate_hot, migrate_cold, stat (on a trace, simulated: counted only)",
        "  sz=MIN-MAX             region size, bytes (4K-max)",
        "  nr_accesses=MIN-MAX    samples per aggregation, or %% of the most (0-0, 0%%-10%%)",
        "  age=MIN-MAX            aggregation intervals, or a time (2s-max)",
        "  apply_interval=T       apply every T instead of every aggregation",
        "  quota_ms=N quota_sz=SIZE quota_reset=T   time and size quota per reset interval",
        "  weights=SZ:FREQ:AGE    priorities when a quota binds (colder first for pageout, cold)",
        "  goal=user_input:TARGET:FILE | some_mem_psi_us:TARGET[:PRESSURE_FILE]   tune the quota",
        "  wmarks=free_mem_rate:INTERVAL:HIGH:MID:LOW   per thousand of free memory",
        "  filter=TYPE:in|out[:ARG]   anon, addr:in:0x7f00-0x7f80, target:in:0; repeatable, in order",
        "Example: --scheme action=pageout,nr_accesses=0-0,age=2s-max,quota_sz=1M,quota_reset=1s",
        "Statistics: faultline report schemes DIR."})
final class MonitorCommand implements Callable<Integer>
{

    @Spec
    CommandSpec spec;

    @Option(names = "--from-trace", paramLabel = "TRACE",
        description = "monitor a faultline trace (best recorded with a tiny EVMS, e.g. record --evms 16)")
    Path trace;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", required = true,
        description = "the monitoring record to write (a new or empty directory)")
    Path output;

    @Option(names = "--sample", paramLabel = "T", converter = Durations.class, defaultValue = "5ms",
        description = "sampling interval (default ${DEFAULT-VALUE})")
    long sampleUs;

    @Option(names = "--aggr", paramLabel = "T", converter = Durations.class, defaultValue = "100ms",
        description = "aggregation interval (default ${DEFAULT-VALUE})")
    long aggrUs;

    @Option(names = "--update", paramLabel = "T", converter = Durations.class, defaultValue = "1s",
        description = "operations update interval (default ${DEFAULT-VALUE})")
    long updateUs;

    @Option(names = "--min-regions", paramLabel = "N", defaultValue = "10",
        description = "minimum number of regions (default ${DEFAULT-VALUE})")
    int minRegions;

    @Option(names = "--max-regions", paramLabel = "N", defaultValue = "1000",
        description = "maximum number of regions (default ${DEFAULT-VALUE})")
    int maxRegions;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
        description = "seed of the random sampling addresses and split sizes (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--scheme", paramLabel = "SPEC",
        description = "a DAMOS scheme (repeatable, applied in order; grammar below)")
    List<String> schemeSpecs;

    @Option(names = "--schemes", paramLabel = "FILE.json",
        description = "schemes as a JSON list in damo's shape (applied before any --scheme)")
    Path schemesFile;

    @Parameters(paramLabel = "PROGRAM", arity = "0..*", description = "a program to monitor live (not yet possible)")
    List<String> program;

    @Override
    public Integer call() throws Exception
    {
        final Attributes attrs = new Attributes(sampleUs, aggrUs, updateUs, minRegions, maxRegions);
        final String problem = attrs.problem();
        if (problem != null)
        {
            throw new CliException(problem + " (--sample, --aggr, --update, --min-regions, --max-regions)");
        }
        if (program != null && !program.isEmpty() || trace == null)
        {
            throw new CliException("monitoring a running program needs the agent's access checks (the vaddr operations"
                + " set), not built yet; record it with faultline record --evms 16 -o TRACE -- PROGRAM, then run"
                + " faultline monitor --from-trace TRACE -o DIR");
        }
        if (MonitorRecordReader.isRecord(trace))
        {
            throw new CliException(trace + " is a monitoring record, not a trace; --from-trace takes a trace written"
                + " by faultline record");
        }
        final List<Scheme> schemes = new ArrayList<>();
        if (schemesFile != null)
        {
            schemes.addAll(SchemesJson.read(schemesFile, attrs));
        }
        if (schemeSpecs != null)
        {
            for (final String spec : schemeSpecs)
            {
                schemes.add(SchemeSpec.parse(spec, attrs));
            }
        }
        if (schemes.stream().anyMatch(s -> s.watermarks().metric() == Watermarks.Metric.FREE_MEM_RATE)
            && !Files.isReadable(FreeMemRate.MEMINFO))
        {
            throw new CliException("cannot read " + FreeMemRate.MEMINFO + " for the free_mem_rate watermarks; leave"
                + " wmarks out");
        }
        try
        {
            TraceWriter.checkUsable(output);
        }
        catch (final TraceFormatException ex)
        {
            throw new CliException(ex.getMessage());
        }
        final long start = System.nanoTime();
        final TraceMonitor.Result result;
        try
        {
            result = TraceMonitor.run(trace, output, attrs, seed, schemes);
        }
        catch (final IllegalStateException ex)
        {
            // A scheme's metric source that stopped being readable while monitoring ran.
            throw new CliException(ex.getMessage(), 1);
        }
        final PrintWriter err = spec.commandLine().getErr();
        err.printf(Locale.ROOT,
            "Monitored %d processes over %.3f s of %s: %d aggregations of %s (sampling %s) into %s in %.3f s%n",
            result.targets(), result.traceEndNs() / 1e9, trace, result.aggregations(), Durations.format(aggrUs),
            Durations.format(sampleUs), output, (System.nanoTime() - start) / 1e9);
        for (int i = 0; i < schemes.size(); i++)
        {
            final SchemeStats st = schemes.get(i).stats();
            err.printf(Locale.ROOT, "Scheme %d (%s): tried %d regions (%d bytes), applied %d (%d bytes, simulated),"
                + " quota exceeded %d times%n", i, schemes.get(i).action().label(), st.nrTried(), st.szTried(),
                st.nrApplied(), st.szApplied(), st.qtExceeds());
        }
        return 0;
    }
}
