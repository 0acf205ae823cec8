package io.faultline.tools;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import io.faultline.damon.AddressRange;
import io.faultline.damon.Attributes;
import io.faultline.damon.SchemeAction;
import io.faultline.damon.live.LiveMonitor;
import io.faultline.damon.live.MonitorException;
import io.faultline.damon.ops.TraceMonitor;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.schemes.FreeMemRate;
import io.faultline.damon.schemes.Scheme;
import io.faultline.damon.schemes.SchemeStats;
import io.faultline.damon.schemes.Watermarks;
import io.faultline.format.TraceFormatException;
import io.faultline.format.ShmLayout;
import io.faultline.format.TraceWriter;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.Written;
import io.faultline.tracer.RecordException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code faultline monitor}: DAMON over a program's memory, every aggregation into a monitoring
 * record (trace-format/MONITOR-FORMAT.md). For now from a recorded trace, with the {@code trace}
 * operations set; a live program needs the {@code vaddr} set, which needs the agent's access checks.
 */
@Command(name = "monitor", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", descriptionHeading = "%n", description = MonitorCommand.SUMMARY,
    sortOptions = false, usageHelpWidth = 100,
    footer = {"", "Defaults are the kernel's (damon_new_ctx), the update interval damo's. Reports: faultline report.",
        "Monitoring a live program (-- PROGRAM) needs userfaultfd: it has no mprotect engine (record --engine), since "
            + "an access check by mprotect would make the program's read(2) into a checked page fail.",
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
        "Statistics: faultline report schemes DIR."},
    modelTransformer = MonitorCommand.Wording.class)
final class MonitorCommand implements Callable<Integer>
{
    /** --skip-corrupt applies to --from-trace only. */
    static final class Wording extends OptionWording
    {
        @Override
        protected Object[][] getContents()
        {
            return new Object[][] {{"skip-corrupt", "with --from-trace: read past corrupt excerpts of the trace, "
                + "counting them (on stderr)"}};
        }
    }

    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "DAMON data access monitoring of a recorded trace, or of a program it runs, "
        + "into a monitoring record.";

    /** The stream picocli's error writer wraps, for the progress line of a live monitor. */
    private final PrintStream errStream;
    private final boolean terminal;

    MonitorCommand(final PrintStream errStream, final boolean terminal)
    {
        this.errStream = errStream;
        this.terminal = terminal;
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--from-trace", paramLabel = "TRACE",
        description = "monitor a faultline trace (best recorded with a tiny EVMS, e.g. record --evms 16)")
    Path trace;

    @Mixin
    SkipCorrupt corrupt;

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

    @Option(names = "--intervals-goal", paramLabel = "ACCESS:AGGRS:MIN:MAX", description = {"auto-tune the sampling "
        + "and aggregation intervals (Linux 6.15's intervals_goal): every AGGRS aggregations, toward ACCESS (4%% or "
        + "400 bp) of the access events DAMON could observe, keeping the sampling interval within MIN and MAX and the "
        + "samples per aggregation; 'recommended' is the kernel's 4%%:3:5ms:10s"})
    String intervalsGoal;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
        description = "seed of the random sampling addresses and split sizes (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--scheme", paramLabel = "SPEC",
        description = "a DAMOS scheme (repeatable, applied in order; grammar below)")
    List<String> schemeSpecs;

    @Option(names = "--schemes", paramLabel = "FILE.json",
        description = "schemes as a JSON list in damo's shape (applied before any --scheme)")
    Path schemesFile;

    @Option(names = "--range", paramLabel = "START-END",
        description = "monitor this fixed address range (fvaddr; hex with 0x, repeatable) instead of the whole"
            + " traced address space (vaddr)")
    List<String> ranges;

    @Option(names = "--scope", paramLabel = "all|api", defaultValue = "all",
        description = "memory the agent may check: all (every private anonymous writable mapping) or api (only"
            + " ranges the program registers with faultline_trace_range) (default ${DEFAULT-VALUE})")
    String scope;

    @Option(names = "--engine", paramLabel = "uffd|sigbus",
        description = "how a sampled page's access is checked: uffd, a userfaultfd handler thread (default where this"
            + " user may have one); sigbus, the touching thread itself in its SIGBUS handler (no privilege needed;"
            + " monitor falls back to it, with a note, when --engine is not given); see record --help")
    String engine;

    @Parameters(paramLabel = "PROGRAM", arity = "0..*",
        description = "the program to monitor, after --, with its arguments (its output is unchanged)")
    List<String> program;

    /** --engine as ShmLayout's id, -1 when not given */
    private int engineId()
    {
        if (engine == null)
        {
            return -1;
        }
        return switch (engine)
        {
            case "uffd" -> ShmLayout.ENGINE_UFFD;
            case "sigbus" -> ShmLayout.ENGINE_SIGBUS;
            default -> throw new CliException("unknown engine '" + engine + "' for monitor; use --engine uffd or --engine sigbus"
                + (engine.equals("mprotect") ? " (the mprotect engine cannot check a page's access)" : ""));
        };
    }

    @Override
    public Integer call() throws Exception
    {
        final Attributes attrs = new Attributes(sampleUs, aggrUs, updateUs, minRegions, maxRegions,
            intervalsGoal == null ? null : AttributeSpec.goalOption(intervalsGoal));
        final String problem = attrs.problem();
        if (problem != null)
        {
            throw new CliException(problem + " (--sample, --aggr, --update, --min-regions, --max-regions)");
        }
        final boolean live = program != null && !program.isEmpty();
        if (live == (trace != null))
        {
            throw new CliException(live ? "give either --from-trace TRACE or a program after --, not both"
                : "nothing to monitor: give a program (faultline monitor -o DIR -- PROGRAM ARGS) or --from-trace TRACE");
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
        if (live)
        {
            if (corrupt.skip)
            {
                throw new CliException("--skip-corrupt applies to --from-trace: a live program has no trace to read");
            }
            return monitorLive(attrs, schemes);
        }
        if (ranges != null)
        {
            throw new CliException("--range applies to a live program (the fvaddr operations set), not to --from-trace");
        }
        if (MonitorRecordReader.isRecord(trace))
        {
            throw new CliException(trace + " is a monitoring record, not a trace; --from-trace takes a trace written"
                + " by faultline record");
        }
        try
        {
            TraceWriter.checkUsable(output);
        }
        catch (final TraceFormatException ex)
        {
            throw CliException.of(ex);
        }
        final long start = System.nanoTime();
        final TraceMonitor.Result result;
        try
        {
            result = TraceMonitor.run(trace, output, attrs, seed, schemes, corrupt.skip);
        }
        catch (final IllegalStateException ex)
        {
            // A scheme's metric source (a goal's file, /proc/meminfo) that stopped being readable while monitoring ran.
            throw new CliException(ex.getMessage(), ExitStatus.ACCESS);
        }
        final PrintWriter err = spec.commandLine().getErr();
        result.notes().forEach(err::println);
        err.printf(Locale.ROOT,
            "Monitored %d processes over %.3f s of %s: %,d aggregations of %s (sampling %s) into %s in %.3f s%n",
            result.targets(), result.traceEndNs() / 1e9, trace, result.aggregations(), Durations.format(aggrUs),
            Durations.format(sampleUs), output, (System.nanoTime() - start) / 1e9);
        printSchemes(err, schemes, "simulated");
        return 0;
    }

    private static void printSchemes(final PrintWriter err, final List<Scheme> schemes, final String how)
    {
        for (int i = 0; i < schemes.size(); i++)
        {
            final SchemeStats st = schemes.get(i).stats();
            err.printf(Locale.ROOT, "Scheme %d (%s): tried %,d regions (%s), applied %,d (%s, %s),"
                + " quota exceeded %,d times%n", i, schemes.get(i).action().label(), st.nrTried(),
                Written.humanBytes(st.szTried()), st.nrApplied(), Written.humanBytes(st.szApplied()), how, st.qtExceeds());
        }
    }

    private int monitorLive(final Attributes attrs, final List<Scheme> schemes) throws Exception
    {
        if (schemes.stream().anyMatch(s -> s.action() == SchemeAction.PAGEOUT) && noSwap())
        {
            spec.commandLine().getErr().println("faultline monitor: note: this machine has no swap, so pageout reclaims"
                + " only file-backed pages; anonymous memory stays where it is");
        }
        final List<AddressRange> fixed = ranges == null ? null : parseRanges(ranges);
        if (!scope.equals("all") && !scope.equals("api"))
        {
            throw new CliException("--scope " + scope + " is not a scope; give all or api");
        }
        try
        {
            TraceWriter.checkUsable(output);
        }
        catch (final TraceFormatException ex)
        {
            throw CliException.of(ex);
        }
        final LiveMonitor.Result result;
        final AtomicReference<LiveMonitor.Watch> watch = new AtomicReference<>();
        spec.commandLine().getErr().flush();
        try (Progress progress = Progress.beside(errStream, terminal,
            elapsedNs -> LiveProgress.monitoring(watch.get(), elapsedNs)))
        {
            // the monitor's warnings erase the line first
            result = LiveMonitor.run(program, output, attrs, seed, schemes, fixed,
                scope.equals("api") ? ShmLayout.SCOPE_API : ShmLayout.SCOPE_ALL, engineId(),
                new PrintWriter(progress.messages(errStream), true), watch::set);
        }
        catch (final RecordException ex)
        {
            throw new CliException(ex.getMessage(), CliException.status(ex.problem()));
        }
        catch (final MonitorException ex)
        {
            throw new CliException(ex.getMessage());
        }
        spec.commandLine().getErr().printf(Locale.ROOT,
            "faultline monitor: %s over %.3f s: %,d aggregations of %s (sampling %s); faults %,d (%,d of them access"
                + " checks); %,d sampling windows and agent requests (%.0f us each on average from posting to answer,"
                + " a window's sampling interval included); into %s; exit status %d%n",
            result.ops(), result.durationNs() / 1e9, result.aggregations(), Durations.format(aggrUs),
            Durations.format(sampleUs), result.faults(), result.checks(), result.requests(),
            result.requests() == 0 ? 0.0 : result.requestNs() / 1e3 / result.requests(), output, result.exitStatus());
        printSchemes(spec.commandLine().getErr(), schemes, "by madvise");
        return result.exitStatus();
    }

    /** SwapTotal of /proc/meminfo is 0 (or unreadable). */
    private static boolean noSwap()
    {
        try
        {
            return Files.readAllLines(FreeMemRate.MEMINFO).stream()
                .anyMatch(l -> l.matches("SwapTotal:\\s+0 kB"));
        }
        catch (final java.io.IOException ex)
        {
            return false;
        }
    }

    /** START-END in hex (0x...) or decimal, page aligned outward, in address order, not overlapping. */
    static List<AddressRange> parseRanges(final List<String> texts)
    {
        final List<AddressRange> out = new ArrayList<>();
        for (final String text : texts)
        {
            final int dash = text.indexOf('-', 1);
            final long start;
            final long end;
            try
            {
                if (dash < 0)
                {
                    throw new NumberFormatException();
                }
                start = SchemeSpec.address(text.substring(0, dash));
                end = SchemeSpec.address(text.substring(dash + 1));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CliException("--range " + text + " is not a range; give START-END, e.g. 0x7f0000000000-0x7f0000100000");
            }
            if (Long.compareUnsigned(end, USER_SPACE_END) > 0)
            {
                throw new CliException("--range " + text + " lies outside every process's address space (user space ends"
                    + " at 0x7ffffffff000); give a range from /proc/PID/maps");
            }
            if (Long.compareUnsigned(end, start) <= 0)
            {
                throw new CliException("--range " + text + " ends before it starts; give START-END with START < END");
            }
            out.add(new AddressRange(start & -PAGE, (end + PAGE - 1) & -PAGE));
        }
        out.sort((a, b) -> Long.compareUnsigned(a.start(), b.start()));
        for (int i = 1; i < out.size(); i++)
        {
            if (Long.compareUnsigned(out.get(i).start(), out.get(i - 1).end()) < 0)
            {
                throw new CliException("--range values overlap (" + texts + "); give disjoint ranges");
            }
        }
        return out;
    }

    private static final long PAGE = 4096;
    /** TASK_SIZE of x86-64 with 4-level page tables (arch/x86/include/asm/page_64_types.h). */
    private static final long USER_SPACE_END = 0x7ffffffff000L;
}
