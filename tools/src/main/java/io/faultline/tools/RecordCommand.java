package io.faultline.tools;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

import io.faultline.format.ShmLayout;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceWriter;
import io.faultline.sim.LimitException;
import io.faultline.sim.PolicySpec;
import io.faultline.sim.SimulationResult;
import io.faultline.sim.report.ConsoleTable;
import io.faultline.sim.report.CsvReports;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.SimulationRow;
import io.faultline.sim.report.Written;
import io.faultline.tools.chart.MissRatioChart;
import io.faultline.tools.live.LiveReplay;
import io.faultline.tracer.RecordException;
import io.faultline.tracer.RecordOptions;
import io.faultline.tracer.Recorder;
import io.faultline.tracer.RecordingCounts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline record}: trace a program into a trace directory. Defaults follow kVMTrace:
 * an EVMS of 512 pages (2 MiB), FIFO, every private anonymous writable mapping.
 */
@Command(name = "record", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = {"faultline record -o DIR [--force] [OPTIONS] [--] PROGRAM [ARGS...]",
        "       faultline record --live [-o DIR] [--policies P,... --sizes S,...] [OPTIONS] PROGRAM ..."},
    descriptionHeading = "%n",
    description = {RecordCommand.SUMMARY, ""},
    footer = {"", "Everything after PROGRAM is the program's. The exit status is the program's "
        + "(128+N if signal N killed it); if the recording stopped early, the program's or 1 if that was 0. "
        + "Before the program starts, record's own errors exit as every command's (faultline --help).", "",
        "The program pays about 20 to 35 us per recorded reference (measured on a 2-core VM, BENCHMARKS.md): "
        + "the demo ran 3.4 times its native time, sort --parallel=2 12 to 21 times, xz -T2 130 to 180 times. "
        + "On a terminal a progress line shows how far it is."},
    modelTransformer = RecordCommand.Wording.class)
final class RecordCommand extends ConsoleCommand
{
    /** --policies and --sizes are --live's, and --policy (singular) is the EVMS's. */
    static final class Wording extends OptionWording
    {
        @Override
        protected Object[][] getContents()
        {
            return new Object[][] {
                {"policies", "--live: policies to replay as simulate does, NAME or NAME:param=value:... (not opt; "
                    + "--policy is the EVMS's)"},
                {"sizes", "--live: the policies' cache sizes in pages, or bytes with K, M, G, as simulate's"}};
        }
    }

    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "Run a program and record its page reference trace into DIR; with --live, also replay it "
        + "as it comes into the LRU miss-ratio curve and the --policies' results.";

    /** The scopes, for shell completion. */
    static final class Policies extends ArrayList<String>
    {
        Policies()
        {
            super(List.of("fifo", "segq", "clock"));
        }
    }

    static final class Modes extends ArrayList<String>
    {
        Modes()
        {
            super(List.of("trace", "moca"));
        }
    }

    /** The smallest ring: its largest message (an eighth, 8 KiB) holds the agent's largest, 2 KiB. */
    private static final int MIN_RING = 64 * 1024;

    /** Moca's own default wakeup interval (dbeniamine/MOCA, README: -w, 50 ms). */
    static final long DEFAULT_MOCA_INTERVAL_US = 50_000;

    static final class Engines extends ArrayList<String>
    {
        Engines()
        {
            super(List.of("uffd", "sigbus", "mprotect"));
        }
    }

    static final class Scopes extends ArrayList<String>
    {
        Scopes()
        {
            super(List.of("all", "api"));
        }
    }

    @Option(names = {"-o", "--output"}, paramLabel = "DIR",
        description = "trace directory to create (new or empty; with --force, one holding a trace)")
    Path output;

    @Option(names = {"-f", "--force"}, description = "replace the trace DIR holds; a directory holding anything "
        + "but a trace is refused and left as it is")
    boolean force;

    @Option(names = "--mode", paramLabel = "trace|moca", completionCandidates = Modes.class,
        description = {"trace: kVMTrace's EVMS, one record per trapped reference (default); moca: Moca's "
            + "intervals, every page referenced in an interval disabled at its end, one chunk per thread "
            + "per interval with each page's read and write faults"})
    String mode = "trace";

    @Option(names = "--interval", paramLabel = "DURATION", converter = Durations.class,
        description = {"--mode moca: the interval (10ms, 0.2s); default 50ms; at least 1 ms"})
    Long intervalUs;

    @Option(names = "--evms", paramLabel = "N", description = {"enabled pages (the evicted virtual mapping set), or "
        + "bytes with K, M, G; default 512 (2 MiB); " + RecordOptions.EVMS_RANGE})
    Size evms;

    @Option(names = "--scope", paramLabel = "all|api", completionCandidates = Scopes.class,
        description = {"all: every private anonymous writable mapping (default);",
            "api: only ranges passed to faultline_trace_range()"})
    String scope = "all";

    @Option(names = "--policy", paramLabel = "fifo|segq|clock", completionCandidates = Policies.class,
        description = {"the EVMS policy (kVMTrace): fifo, one FIFO segment (default); segq, a leading FIFO "
            + "segment whose exits enter a trailing FIFO or CLOCK segment; clock, segq --trail clock"})
    String policy;

    @Option(names = "--lead", paramLabel = "N", description = "pages of segq's leading segment; default "
        + RecordOptions.DEFAULT_LEAD_PAGES + "; at least 1 and less than --evms, which counts both segments")
    Integer lead;

    @Option(names = "--trail", paramLabel = "fifo|clock", description = "how segq's trailing segment evicts; default clock")
    String trail;

    @Option(names = "--no-dirty", description = {"no dirty tracking: pages brought in by a read are not "
        + "write-protected, so a write while resident is not seen and eviction tags w/W say only that a fault "
        + "of the page was a write; saves a write-protect per read reference and a fault per first write"})
    boolean noDirty;

    @Option(names = "--stacks", paramLabel = "N", description = {"keep the call stack of every trapped reference, up "
        + "to N frames (1 to " + ShmLayout.STACK_FRAMES_MAX + "), deduplicated into a stack table in the trace, for report "
        + "callsites and export --to folded. The agent walks the frame-pointer chain in the faulting thread's "
        + "signal handler, so --stacks needs an in-thread engine: sigbus unless --engine mprotect is given (under "
        + "uffd a handler thread resolves the fault and has no access to the faulting thread's registers). Code "
        + "built without frame pointers (most distributions' libraries) ends a stack early or skips its caller."})
    Integer stacks;

    @Option(names = "--no-kernel-events", description = {"record no kernel events: by default the system-call gate "
        + "records, under every engine, each open (path, descriptor, regular file, pipe, socket or device, device and "
        + "inode, length), close, dup, read and write (descriptor, offset, bytes transferred), truncate, unlink, "
        + "rename, shmat and shmdt of the program (trace-format/FORMAT.md, \"Kernel events\"). Under uffd the "
        + "gate arms only for them, and every system call pays a trip through it (about 5 us here), which this "
        + "option saves; under sigbus and mprotect an event adds under 1 us to its call (BENCHMARKS.md)"})
    boolean noKernelEvents;

    @Option(names = "--engine", paramLabel = "uffd|sigbus|mprotect", completionCandidates = Engines.class,
        description = {"how references are trapped: uffd, userfaultfd with a handler thread (default where this "
            + "user may have one: a read(2) into a disabled page waits and succeeds); sigbus, a user-mode "
            + "userfaultfd whose faults each thread resolves itself in its SIGBUS handler (needs no privilege: "
            + "record falls back to it, with a note, when the uffd engine is unavailable and --engine is not "
            + "given); mprotect, PROT_NONE and SIGSEGV, for kernels without userfaultfd.",
            "Under sigbus and mprotect a kernel-mode access to a disabled page would fail with EFAULT: the "
            + "system-call gate (Syscall User Dispatch) brings in every page of user memory each call reads or "
            + "writes first, records those references as the kernel's, and sees glibc's own munmap, madvise and "
            + "brk; it costs every system call a SIGSYS (3 to 5 us here). Not covered: threads started by raw "
            + "clone(), calls whose memory it cannot size (bpf, keyctl, ptrace), and io_uring (refused with "
            + "ENOSYS). FAULTLINE_GATE=off replaces it with buffer touching in the libc wrappers.",
            "Cost per trapped reference on the 2-core VM of BENCHMARKS.md, against each thread moving its own "
            + "page home with nothing recorded: sigbus 1.6 to 3.1 times on one thread, 0.9 to 1.3 on two; "
            + "mprotect 1.5 to 2.1 and 1.2 to 1.3; uffd 3.5 to 3.8 and 1.1 to 1.2. The README lists the rest."})
    String engine;

    @Option(names = "--ring-size", paramLabel = "BYTES",
        description = "ring per process, a power of two from 64K to 1G, times --max-processes at most 2 GiB "
            + "(16M with the default 64); default 4M")
    Size ringSize;

    // The recorder joins the agent's ring messages (at most 64 records, 2 KiB, less than the smallest
    // ring's largest message, 8 KiB) into chunks of up to N in its own memory: any N suits any ring.
    @Option(names = "--chunk-records", paramLabel = "N", description = "most records in one chunk of the trace; "
        + "default 256; 1 to 65536")
    Integer chunkRecords;

    @Option(names = "--no-follow", description = "trace only the first process, not its children")
    boolean noFollow;

    @Option(names = "--max-processes", paramLabel = "N", description = "process images traced at most (each fork "
        + "child and each exec takes one); default 64; 1 to " + RecordOptions.MAX_PROCESSES + ", and times --ring-size "
        + "at most 2 GiB")
    Integer maxProcesses;

    @Option(names = "--max-threads", paramLabel = "N", description = "threads that resolve their faults at once, each "
        + "publishing into a ring of its own of min(--ring-size, 1M) bytes (further threads share their process's lock); "
        + "default " + RecordOptions.DEFAULT_THREAD_RINGS + ", 0 to " + RecordOptions.MAX_THREAD_RINGS)
    Integer maxThreads;

    @Option(names = "--live", description = {"replay the references while the program runs into the exact LRU "
        + "miss-ratio curve (mrc) and the --policies at --sizes (simulate), show them and the working set on a "
        + "terminal, and write them at the end: the curve as mrc's CSV (--mrc-csv, else standard output), the "
        + "policies as simulate's table on standard output and CSV (--csv); without -o no trace is kept"})
    boolean live;

    @Mixin
    PolicyGrid grid;

    @Option(names = "--mrc-csv", paramLabel = "OUT", description = "--live: write the curve (" + CsvReports.MRC_HEADER
        + ") here instead of to standard output")
    Path mrcCsv;

    @Option(names = "--max-size", paramLabel = "N", description = "--live: the curve's largest size, in pages (or "
        + "bytes with K, M, G), as mrc --max-size; default: the distinct pages")
    Size maxSize;

    @Option(names = "--mrc-plot", paramLabel = "OUT", description = "--live: also draw the curve (miss ratio "
        + "against size), PNG or SVG by extension, as mrc --plot does")
    Path mrcPlot;

    @Option(names = "--csv", paramLabel = "OUT", description = "--live with --policies: also write simulate's "
        + CsvReports.SIMULATION_HEADER)
    Path simulationCsv;

    @Option(names = "--live-backlog", paramLabel = "BYTES", description = "--live: references the replay may be "
        + "behind the recording in the heap (24 bytes each) before the rest waits in a spill file under "
        + "java.io.tmpdir; default 256M")
    Size liveBacklog;

    @Option(names = {"-q", "--quiet"}, description = "no summary line at the end, and no progress line (drawn "
        + "on stderr when it is a terminal: references, rate, time, processes and threads so far)")
    boolean quiet;

    @Parameters(paramLabel = "PROGRAM", arity = "0..*", description = "the program to trace and its arguments")
    List<String> command = new ArrayList<>();

    RecordCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        super(out, err, terminal);
    }

    @Override
    public Integer call() throws Exception
    {
        final RecordOptions options = options();
        final LiveOptions liveOptions = live ? liveOptions(options) : null;
        out.flush();
        // The recorder checks this too, but its error cannot say whether the fix is another
        // directory or its permissions; checked here, the exit status can. A trace there is the
        // recorder's to replace (--force) or to name.
        if (options.output != null && !options.replace
            && !(Files.isDirectory(options.output) && TraceWriter.holdsTrace(options.output)))
        {
            try
            {
                TraceWriter.checkUsable(options.output);
            }
            catch (final TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
        }
        if (liveOptions != null)
        {
            return recordLive(options, liveOptions);
        }
        try
        {
            final RecordingCounts counts = new RecordingCounts();
            try (Progress progress = Progress.beside(err, terminal && !options.quiet,
                elapsedNs -> LiveProgress.recording(counts, elapsedNs)))
            {
                // the recorder's notes, warnings and summary erase the line first
                return new Recorder(options, progress.messages(err), counts).record();
            }
        }
        catch (final RecordException ex)
        {
            throw new CliException(ex.getMessage(), CliException.status(ex.problem()));
        }
    }

    /** The control block's FL_POLICY_* for --policy and --trail, with --lead checked against the EVMS size. */
    private int evmsPolicy(final int evmsPages)
    {
        final String policy = this.policy == null ? "fifo" : this.policy;
        if (policy.equals("fifo"))
        {
            if (lead != null || trail != null)
            {
                throw new CliException("--lead and --trail apply to --policy segq or clock, not fifo");
            }
            return ShmLayout.POLICY_FIFO;
        }
        if (!policy.equals("segq") && !policy.equals("clock"))
        {
            throw new CliException("unknown EVMS policy '" + policy + "'; use --policy fifo, segq or clock");
        }
        final String trailing = trail == null ? "clock" : trail;
        if (policy.equals("clock") && !trailing.equals("clock"))
        {
            throw new CliException("--policy clock is segq with --trail clock; use --policy segq --trail " + trailing);
        }
        final int leadPages = lead == null ? RecordOptions.DEFAULT_LEAD_PAGES : lead;
        if (leadPages < 1 || leadPages >= evmsPages)
        {
            throw new CliException("--lead must be at least 1 and less than --evms (" + evmsPages
                + "), which counts both segments: " + leadPages);
        }
        return switch (trailing)
        {
            case "clock" -> ShmLayout.POLICY_SEGQ_CLOCK;
            case "fifo" -> ShmLayout.POLICY_SEGQ_FIFO;
            default -> throw new CliException("unknown trailing segment policy '" + trailing + "'; use --trail fifo or clock");
        };
    }

    /** --mode and --interval, and what Moca's mode excludes: it keeps no EVMS. */
    private void mocaMode(final RecordOptions options)
    {
        if (!mode.equals("trace") && !mode.equals("moca"))
        {
            throw new CliException("unknown mode '" + mode + "'; use --mode trace or --mode moca");
        }
        if (mode.equals("trace"))
        {
            if (intervalUs != null)
            {
                throw new CliException("--interval applies to --mode moca; add --mode moca or drop --interval");
            }
            return;
        }
        if ("mprotect".equals(engine))
        {
            throw new CliException("--mode moca runs on the userfaultfd engines only (uffd, sigbus); drop --engine mprotect");
        }
        if (noDirty)
        {
            throw new CliException("--no-dirty applies to --mode trace: Moca mode counts a page's write faults "
                + "through write-protection; drop --no-dirty");
        }
        if (chunkRecords != null)
        {
            throw new CliException("--chunk-records applies to --mode trace: a Moca chunk holds a thread's pages of "
                + "one interval; drop --chunk-records");
        }
        if (evms != null || policy != null || lead != null || trail != null)
        {
            throw new CliException("--mode moca keeps no EVMS: drop " + (evms != null ? "--evms" : policy != null
                ? "--policy" : lead != null ? "--lead" : "--trail") + " (pages stay enabled until the interval ends)");
        }
        final long us = intervalUs == null ? DEFAULT_MOCA_INTERVAL_US : intervalUs;
        if (us * 1_000 < ShmLayout.MOCA_MIN_INTERVAL_NS)
        {
            throw new CliException("--interval must be at least " + Durations.format(ShmLayout.MOCA_MIN_INTERVAL_NS / 1_000)
                + " (the agent's interval ends are kept to the millisecond, and each costs a move per run of pages): "
                + Durations.format(us));
        }
        options.mocaIntervalNs = us * 1_000;
    }

    /**
     * The recorder maps the shared memory (a ring per process slot) as one buffer, which Java
     * indexes with an int: ring size times --max-processes must stay under 2 GiB. Checked here,
     * with the largest values that fit, rather than when the file is created.
     */
    private static void sharedMemoryFits(final RecordOptions options)
    {
        final int pageSize = RecordOptions.systemPageSize();
        if (options.sharedMemorySize(pageSize) <= Integer.MAX_VALUE)
        {
            return;
        }
        final int threads = options.threadRings;
        final int threadRing = options.threadRingCapacity();
        int ring = options.ringCapacity;
        while (ring > MIN_RING && ShmLayout.fileSize(options.slots, ring, pageSize, options.boardEntries, threads,
            Math.min(ring, threadRing)) > Integer.MAX_VALUE)
        {
            ring >>= 1;
        }
        int slots = options.slots;
        while (slots > 1 && ShmLayout.fileSize(slots, options.ringCapacity, pageSize, options.boardEntries, threads,
            threadRing) > Integer.MAX_VALUE)
        {
            slots--;
        }
        int threadRings = threads;
        while (threadRings > 0 && ShmLayout.fileSize(options.slots, options.ringCapacity, pageSize, options.boardEntries,
            threadRings, threadRing) > Integer.MAX_VALUE)
        {
            threadRings /= 2;
        }
        // fewer thread rings is offered only where it alone makes the file fit
        final boolean fewerThreads = ShmLayout.fileSize(options.slots, options.ringCapacity, pageSize,
            options.boardEntries, threadRings, threadRing) <= Integer.MAX_VALUE;
        throw new CliException("--ring-size " + Size.formatBytes(options.ringCapacity) + " for each of --max-processes "
            + options.slots + " is more shared memory than the recorder maps (2 GiB); use --ring-size "
            + Size.formatBytes(ring) + (fewerThreads ? ", --max-processes " + slots + " or --max-threads " + threadRings
            : " or --max-processes " + slots));
    }

    /** What --live was given, checked. */
    private record LiveOptions(List<PolicySpec> specs, int[] capacities, long backlogBytes, OptionalInt maxSize)
    {
    }

    /** --live's options, checked before the program starts; the other options refuse them without --live. */
    private LiveOptions liveOptions(final RecordOptions options)
    {
        if (options.mocaIntervalNs > 0)
        {
            throw new CliException("--live replays references, and a Moca recording has page sets per interval "
                + "instead (mrc and simulate refuse them too); drop --live or --mode moca");
        }
        if (grid.policies == null && grid.sizes != null)
        {
            throw new CliException("--sizes needs --policies: the LRU curve has every size already; add --policies "
                + "lru,... or drop --sizes");
        }
        if (grid.policies != null && grid.sizes == null)
        {
            throw new CliException("missing --sizes for --policies; e.g. --sizes 1024,4M (pages, or bytes with K/M/G)");
        }
        if (simulationCsv != null && grid.policies == null)
        {
            throw new CliException("--csv writes the --policies' results; add --policies and --sizes, or use --mrc-csv "
                + "for the LRU curve");
        }
        final List<PolicySpec> specs = new ArrayList<>();
        int[] capacities = new int[0];
        if (grid.policies != null)
        {
            try
            {
                specs.addAll(grid.specs());
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CliException("--policies: " + ex.getMessage());
            }
            capacities = grid.capacities(RecordOptions.systemPageSize());
        }
        if (mrcPlot != null)
        {
            try
            {
                MissRatioChart.checkExtension(mrcPlot);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CliException("--mrc-plot: " + ex.getMessage());
            }
        }
        for (final Path file : new Path[] {mrcCsv, simulationCsv, mrcPlot})
        {
            if (file != null)
            {
                writable(file);
            }
        }
        final long backlog = liveBacklog == null ? DEFAULT_LIVE_BACKLOG : liveBacklog.bytes();
        if (backlog < MIN_LIVE_BACKLOG || backlog > Runtime.getRuntime().maxMemory() / 2)
        {
            throw new CliException("--live-backlog must be from " + Size.formatBytes(MIN_LIVE_BACKLOG) + " to half the "
                + "heap (" + Written.humanBytes(Runtime.getRuntime().maxMemory() / 2) + "; more with "
                + "FAULTLINE_JAVA_OPTS=-Xmx...): " + Size.formatBytes(backlog));
        }
        final OptionalInt maxPages = maxSize == null ? OptionalInt.empty()
            : OptionalInt.of(SimulationGrid.cacheSize(maxSize, RecordOptions.systemPageSize(), "--max-size"));
        return new LiveOptions(specs, capacities, backlog, maxPages);
    }

    private static final long DEFAULT_LIVE_BACKLOG = 256L << 20;
    private static final long MIN_LIVE_BACKLOG = 64L << 10;

    /** An output file is checked before the program runs, not found unwritable when a long run ends. */
    private static void writable(final Path file)
    {
        final Path parent = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file) || parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent)
            || (Files.exists(file) && !Files.isWritable(file)))
        {
            throw new CliException("cannot write " + file + ": " + (Files.isDirectory(file) ? "it is a directory"
                : parent == null || !Files.isDirectory(parent) ? "no such directory " + parent
                : "permission denied") + "; choose another file", ExitStatus.ACCESS);
        }
    }

    /** record --live: the recording with its replay beside it, then the replay's results. */
    private int recordLive(final RecordOptions options, final LiveOptions liveOptions) throws Exception
    {
        final int pageSize = RecordOptions.systemPageSize();
        final int[] shown = LiveView.shownSizes(options.evmsPages);
        final LiveReplay replay;
        try
        {
            replay = new LiveReplay(pageSize, liveOptions.specs(), liveOptions.capacities(), shown, liveOptions.maxSize(),
                liveOptions.backlogBytes(), Path.of(System.getProperty("java.io.tmpdir")));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException("--policies: " + ex.getMessage());
        }
        catch (final LimitException ex)
        {
            throw new CliException(ex.getMessage(), ExitStatus.LIMIT);
        }
        final int status;
        final RecordingCounts counts = new RecordingCounts();
        final LiveView view = new LiveView(liveOptions.specs(), liveOptions.capacities(), pageSize, replay, counts);
        replay.start();
        try (Progress progress = Progress.beside(err, terminal && !options.quiet, view::line))
        {
            status = new Recorder(options, progress.messages(err), counts).tee(replay.tee()).record();
        }
        catch (final RecordException ex)
        {
            throw new CliException(ex.getMessage(), CliException.status(ex.problem()));
        }
        final long catchUpStart = System.nanoTime();
        final LiveReplay.Result result = replay.finish();
        final long catchUpNs = System.nanoTime() - catchUpStart;
        if (result.failure() != null)
        {
            err.println("faultline record: --live: " + result.failure() + "; no live result was written"
                + (options.output == null ? "" : "; the trace " + options.output + " has every reference: run "
                + "faultline mrc or simulate on it"));
            return status != 0 ? status : ExitStatus.INCOMPLETE;
        }
        if (!options.quiet)
        {
            err.println(LiveView.summary(result, replay.pairs(), catchUpNs));
        }
        if (!result.exact())
        {
            err.printf(Locale.ROOT, "faultline record: --live: warning: %,d references were given up for lost "
                + "(a process killed between taking a seq and publishing it) and %,d came after that, out of order: "
                + "the live results may differ from mrc and simulate of the trace%n", result.skipped(), result.late());
        }
        writeResults(result, options);
        return status;
    }

    private void writeResults(final LiveReplay.Result result, final RecordOptions options) throws IOException
    {
        if (mrcCsv == null)
        {
            final PrintWriter writer = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
            CsvReports.writeMrc(result.curve(), writer);
            writer.flush();
        }
        else
        {
            final long start = System.nanoTime();
            try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(mrcCsv, StandardCharsets.UTF_8)))
            {
                CsvReports.writeMrc(result.curve(), writer);
            }
            Written.report(err, "miss-ratio curve as CSV", mrcCsv, start);
        }
        if (mrcPlot != null && result.curve().maxSize() > 0)
        {
            final long start = System.nanoTime();
            final String program = options.command.isEmpty() ? "the program" : Path.of(options.command.get(0))
                .getFileName().toString();
            MissRatioChart.write(mrcPlot, "LRU miss-ratio curve of " + program + " (record --live)",
                List.of(MissRatioChart.Series.of(result.curve())));
            Written.report(err, "chart", mrcPlot, start);
        }
        if (result.simulations().isEmpty())
        {
            return;
        }
        // the trace column as simulate names a trace: its directory's name
        final String trace = options.output == null ? "live" : options.output.toAbsolutePath().normalize()
            .getFileName().toString();
        final List<SimulationRow> rows = new ArrayList<>();
        for (final SimulationResult r : result.simulations())
        {
            rows.add(new SimulationRow(trace, r.policy(), r.capacity(), r.requests(), r.misses()));
        }
        ConsoleTable.print(rows, out);
        out.flush();
        if (simulationCsv != null)
        {
            final long start = System.nanoTime();
            try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(simulationCsv, StandardCharsets.UTF_8)))
            {
                CsvReports.writeSimulation(rows, writer);
            }
            Written.report(err, rows.size() + " results as CSV", simulationCsv, start);
        }
    }

    /** --stacks: N in range, trace mode, and an in-thread engine (sigbus unless one is named). */
    private void callStacks(final RecordOptions options)
    {
        if (stacks == null)
        {
            return;
        }
        options.stackFrames = Values.between("--stacks", stacks, 1, ShmLayout.STACK_FRAMES_MAX);
        if (mode.equals("moca"))
        {
            throw new CliException("--stacks applies to --mode trace: a Moca chunk has one record per page and "
                + "interval; drop --stacks or --mode moca");
        }
        if ("uffd".equals(engine))
        {
            throw new CliException("--stacks needs an in-thread engine: under uffd a handler thread resolves each "
                + "fault and cannot see the faulting thread's stack; record with --engine sigbus or mprotect");
        }
        if (engine == null)
        {
            options.engine = ShmLayout.ENGINE_SIGBUS;
        }
    }

    private RecordOptions options()
    {
        if (!live)
        {
            final String stray = grid.policies != null ? "--policies" : grid.sizes != null ? "--sizes" : mrcCsv != null
                ? "--mrc-csv" : mrcPlot != null ? "--mrc-plot" : maxSize != null ? "--max-size" : simulationCsv != null ? "--csv" : liveBacklog != null ? "--live-backlog" : null;
            if (stray != null)
            {
                throw new CliException(stray + " applies to --live, which replays the references while the program "
                    + "runs; add --live, or run faultline mrc or simulate on the trace afterwards");
            }
        }
        final RecordOptions options = new RecordOptions();
        mocaMode(options);
        if (evms != null)
        {
            final long pages = evms.pages(RecordOptions.systemPageSize(), "--evms");
            if (pages < RecordOptions.MIN_EVMS_PAGES || pages > RecordOptions.MAX_EVMS_PAGES)
            {
                throw new CliException("--evms must be " + RecordOptions.EVMS_RANGE + ": " + pages);
            }
            options.evmsPages = (int)pages;
        }
        options.scope = switch (scope)
        {
            case "all" -> ShmLayout.SCOPE_ALL;
            case "api" -> ShmLayout.SCOPE_API;
            default -> throw new CliException("unknown scope '" + scope + "'; use --scope all or --scope api");
        };
        options.policy = evmsPolicy(options.evmsPages);
        options.dirtyTracking = !noDirty;
        callStacks(options);
        options.kernelEvents = !noKernelEvents;
        if (engine != null)
        {
            options.engineChosen = true;
            options.engine = switch (engine)
            {
                case "uffd" -> ShmLayout.ENGINE_UFFD;
                case "mprotect" -> ShmLayout.ENGINE_MPROTECT;
                case "sigbus" -> ShmLayout.ENGINE_SIGBUS;
                default -> throw new CliException("unknown engine '" + engine + "'; use --engine uffd, sigbus or mprotect");
            };
        }
        if (lead != null)
        {
            options.leadPages = lead;
        }
        if (ringSize != null)
        {
            final long bytes = ringSize.bytes();
            if (bytes < MIN_RING || bytes > (1L << 30) || Long.bitCount(bytes) != 1)
            {
                throw new CliException("--ring-size must be a power of two from 64K to 1G: " + bytes);
            }
            options.ringCapacity = (int)bytes;
        }
        if (chunkRecords != null)
        {
            options.chunkRecords = Values.between("--chunk-records", chunkRecords, 1, 65536);
        }
        if (maxProcesses != null)
        {
            options.slots = Values.between("--max-processes", maxProcesses, 1, RecordOptions.MAX_PROCESSES);
        }
        if (maxThreads != null)
        {
            options.threadRings = Values.between("--max-threads", maxThreads, 0, RecordOptions.MAX_THREAD_RINGS);
        }
        options.follow = !noFollow;
        options.quiet = quiet;
        options.replace = force;
        options.output = output;
        options.command = new ArrayList<>(command);
        if (options.output == null && !live)
        {
            throw new CliException("missing -o DIR: where to write the trace (or --live, which replays the "
                + "references as they come and needs none)");
        }
        if (options.command.isEmpty())
        {
            throw new CliException("missing program to trace: faultline record -o DIR -- PROGRAM [ARGS...]");
        }
        sharedMemoryFits(options);
        return options;
    }
}
