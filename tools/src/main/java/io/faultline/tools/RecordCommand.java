package io.faultline.tools;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.faultline.format.ShmLayout;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceWriter;
import io.faultline.sim.report.Progress;
import io.faultline.tracer.RecordException;
import io.faultline.tracer.RecordOptions;
import io.faultline.tracer.Recorder;
import io.faultline.tracer.RecordingCounts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline record}: trace a program into a trace directory. Defaults follow kVMTrace:
 * an EVMS of 512 pages (2 MiB), FIFO, every private anonymous writable mapping.
 */
@Command(name = "record", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = "faultline record -o DIR [--force] [OPTIONS] [--] PROGRAM [ARGS...]",
    descriptionHeading = "%n",
    description = {"Run a program and record its page reference trace into DIR.", ""},
    footer = {"", "Everything after PROGRAM is the program's. The exit status is the program's "
        + "(128+N if signal N killed it); if the recording stopped early, the program's or 1 if that was 0. "
        + "Before the program starts, record's own errors exit as every command's (faultline --help).", "",
        "The program pays about 20 to 35 us per recorded reference (measured on a 2-core VM, BENCHMARKS.md): "
        + "the demo ran 3.4 times its native time, sort --parallel=2 12 to 21 times, xz -T2 130 to 180 times. "
        + "On a terminal a progress line shows how far it is."})
final class RecordCommand implements Callable<Integer>
{
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
        description = {"--mode moca: the interval (10ms, 0.2s); default 50ms, at least 1ms"})
    Long intervalUs;

    @Option(names = "--evms", paramLabel = "N", description = {"enabled pages (the evicted virtual mapping set), or "
        + "bytes with K, M, G; default 512 (2 MiB), at least " + RecordOptions.MIN_EVMS_PAGES})
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
        + RecordOptions.DEFAULT_LEAD_PAGES + ", less than --evms, which counts both segments")
    Integer lead;

    @Option(names = "--trail", paramLabel = "fifo|clock", description = "how segq's trailing segment evicts; default clock")
    String trail;

    @Option(names = "--no-dirty", description = {"no dirty tracking: pages brought in by a read are not "
        + "write-protected, so a write while resident is not seen and eviction tags w/W say only that a fault "
        + "of the page was a write; saves a write-protect per read reference and a fault per first write"})
    boolean noDirty;

    @Option(names = "--engine", paramLabel = "uffd|sigbus|mprotect", completionCandidates = Engines.class,
        description = {"how references are trapped: uffd, userfaultfd with a handler thread (default where this "
            + "user may have one: a read(2) into a disabled page waits and succeeds); sigbus, a user-mode "
            + "userfaultfd whose faults each thread resolves itself in its SIGBUS handler (needs no privilege: "
            + "record falls back to it, with a note, when the uffd engine is unavailable and --engine is not "
            + "given); mprotect, PROT_NONE and SIGSEGV, for kernels without userfaultfd.",
            "Under sigbus and mprotect a kernel-mode access to a disabled page fails with EFAULT: the agent touches the "
            + "buffers of read, pread, readv, recv, recvfrom, write, pwrite, writev, send, sendto, fread, fwrite, "
            + "getdents64, stat, fstat, lstat, fstatat, the wait family, pipe, getrusage, uname, poll, ppoll, "
            + "select, pselect, epoll_wait, epoll_pwait, nanosleep, clock_nanosleep, pthread_getattr_np's CPU set "
            + "and the arguments of exec and posix_spawn first, and gives stdio streams "
            + "opened with fopen/fdopen and stdin/stdout buffers outside traced memory; not covered: other "
            + "system calls given a traced buffer (ioctl, io_uring, preadv2, sendmsg/recvmsg, raw syscall()), "
            + "and libc's internal reads into traced memory (getpwnam and other nss lookups, opendir's buffer). "
            + "munmap, madvise, mremap and mmap with MAP_FIXED are seen only through their libc calls, not "
            + "glibc's internal ones. The README lists the rest."})
    String engine;

    @Option(names = "--ring-size", paramLabel = "BYTES",
        description = "ring per process, a power of two from 64K to 1G, times --max-processes at most 2 GiB "
            + "(16M with the default 64); default 4M")
    Size ringSize;

    // The recorder joins the agent's ring messages (at most 64 records, 2 KiB, less than the smallest
    // ring's largest message, 8 KiB) into chunks of up to N in its own memory: any N suits any ring.
    @Option(names = "--chunk-records", paramLabel = "N", description = "most records in one chunk of the trace; "
        + "default 256, at most 65536")
    Integer chunkRecords;

    @Option(names = "--no-follow", description = "trace only the first process, not its children")
    boolean noFollow;

    @Option(names = "--max-processes", paramLabel = "N", description = "process images traced at most (each fork "
        + "child and each exec takes one); default 64, at most " + RecordOptions.MAX_PROCESSES + ", times --ring-size "
        + "at most 2 GiB")
    Integer maxProcesses;

    @Option(names = {"-q", "--quiet"}, description = "no summary line at the end, and no progress line (drawn "
        + "on stderr when it is a terminal: references, rate, time, processes and threads so far)")
    boolean quiet;

    @Parameters(paramLabel = "PROGRAM", arity = "0..*", description = "the program to trace and its arguments")
    List<String> command = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;

    RecordCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        this.out = out;
        this.err = err;
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws Exception
    {
        final RecordOptions options = options();
        out.flush();
        // The recorder checks this too, but its error cannot say whether the fix is another
        // directory or its permissions; checked here, the exit status can. A trace there is the
        // recorder's to replace (--force) or to name.
        if (!options.replace && !(Files.isDirectory(options.output) && TraceWriter.holdsTrace(options.output)))
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
            throw new CliException(ex.getMessage());
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
        if (ShmLayout.fileSize(options.slots, options.ringCapacity, pageSize, options.boardEntries) <= Integer.MAX_VALUE)
        {
            return;
        }
        int ring = options.ringCapacity;
        while (ring > MIN_RING && ShmLayout.fileSize(options.slots, ring, pageSize, options.boardEntries) > Integer.MAX_VALUE)
        {
            ring >>= 1;
        }
        int slots = options.slots;
        while (slots > 1 && ShmLayout.fileSize(slots, options.ringCapacity, pageSize, options.boardEntries) > Integer.MAX_VALUE)
        {
            slots--;
        }
        throw new CliException("--ring-size " + Size.formatBytes(options.ringCapacity) + " for each of --max-processes "
            + options.slots + " is more shared memory than the recorder maps (2 GiB); use --ring-size "
            + Size.formatBytes(ring) + " or --max-processes " + slots);
    }

    private RecordOptions options()
    {
        final RecordOptions options = new RecordOptions();
        mocaMode(options);
        if (evms != null)
        {
            options.evmsPages = Values.between("--evms", evms.pages(RecordOptions.systemPageSize(), "--evms"), 1, 1 << 24);
            if (options.evmsPages < RecordOptions.MIN_EVMS_PAGES)
            {
                throw new CliException("--evms must be at least " + RecordOptions.MIN_EVMS_PAGES + ": one x86 "
                    + "instruction can need several pages at once (operands that straddle pages, string moves, "
                    + "gathers, the stack), and with fewer enabled pages it could fault forever: " + options.evmsPages);
            }
        }
        options.scope = switch (scope)
        {
            case "all" -> ShmLayout.SCOPE_ALL;
            case "api" -> ShmLayout.SCOPE_API;
            default -> throw new CliException("unknown scope '" + scope + "'; use --scope all or --scope api");
        };
        options.policy = evmsPolicy(options.evmsPages);
        options.dirtyTracking = !noDirty;
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
        options.follow = !noFollow;
        options.quiet = quiet;
        options.replace = force;
        options.output = output;
        options.command = new ArrayList<>(command);
        if (options.output == null)
        {
            throw new CliException("missing -o DIR: where to write the trace");
        }
        if (options.command.isEmpty())
        {
            throw new CliException("missing program to trace: faultline record -o DIR -- PROGRAM [ARGS...]");
        }
        sharedMemoryFits(options);
        return options;
    }
}
