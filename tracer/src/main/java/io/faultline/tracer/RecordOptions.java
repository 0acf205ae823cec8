package io.faultline.tracer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Options of a recording (the command line's {@code faultline record} fills them in and checks
 * their ranges). Defaults follow kVMTrace: an EVMS of 512 pages (2 MiB), FIFO, every private
 * anonymous writable mapping.
 */
public final class RecordOptions
{
    /**
     * Fewest enabled pages: every page one instruction touches must be enabled at once for it
     * to complete, and an x86 instruction can touch many (an AVX-512 gather up to 16 elements).
     */
    public static final int MIN_EVMS_PAGES = 16;

    /** Most enabled pages: 64 GiB of 4 KiB pages; the agent sizes its EVMS tables for all of them at start. */
    public static final int MAX_EVMS_PAGES = 1 << 24;

    /**
     * The EVMS size's range and why it has a floor, as every interface states it (record --evms,
     * the Java API, the JMH profiler): "16 to 16777216 pages (...)".
     */
    public static final String EVMS_RANGE = MIN_EVMS_PAGES + " to " + MAX_EVMS_PAGES + " pages (one x86 instruction can "
        + "need several pages enabled at once: operands that straddle pages, string moves, gathers, the stack)";

    /** kVMTrace's leading segment: small, but every page one instruction touches fits. */
    public static final int DEFAULT_LEAD_PAGES = 8;

    /** Most process slots: each has its own ring in /dev/shm (sparse until written). */
    public static final int MAX_PROCESSES = 1024;

    public Path output;
    public int evmsPages = 512;
    public int scope = io.faultline.format.ShmLayout.SCOPE_ALL;
    public int policy = io.faultline.format.ShmLayout.POLICY_FIFO;
    /** Pages in the leading FIFO segment under the segq policies (kVMTrace's default: 8). */
    public int leadPages = DEFAULT_LEAD_PAGES;
    /** How the agent traps references: userfaultfd (default) or mprotect and SIGSEGV. */
    public int engine = io.faultline.format.ShmLayout.ENGINE_UFFD;
    /** The user chose {@link #engine}: no falling back to mprotect when userfaultfd is unavailable. */
    public boolean engineChosen;
    public int ringCapacity = 4 << 20;
    public int chunkRecords = 256;
    public int slots = 64;
    /**
     * Thread rings (faultline_shm.h, "Producers and rings"): a thread of a traced process that
     * resolves its faults without the agent lock publishes into a ring of its own. Threads beyond
     * the pool take the lock's path (record --max-threads).
     */
    public int threadRings = DEFAULT_THREAD_RINGS;

    /** Threads with a ring of their own at once, by default (record --max-threads). */
    public static final int DEFAULT_THREAD_RINGS = 256;
    /** Most thread rings: their descriptors and rings, at 64 KiB each, stay well inside the 2 GiB the recorder maps. */
    public static final int MAX_THREAD_RINGS = 4096;
    /** Most bytes of one thread ring: each thread that publishes takes this much shared memory at most. */
    public static final int MAX_THREAD_RING = 1 << 20;

    /** Bytes of record space of each thread ring: --ring-size, at most {@link #MAX_THREAD_RING}. */
    public int threadRingCapacity()
    {
        return Math.min(ringCapacity, MAX_THREAD_RING);
    }

    /** Bytes of the shared memory file these options make (faultline_shm.h). */
    public long sharedMemorySize(final int pageSize)
    {
        return io.faultline.format.ShmLayout.fileSize(slots, ringCapacity, pageSize, boardEntries, threadRings,
            threadRingCapacity());
    }
    public boolean follow = true;
    /**
     * The EVMS's dirty flag is exact (a page brought in by a read is write-protected) unless
     * false: then it says only that a fault of the page was a write (record --no-dirty).
     */
    public boolean dirtyTracking = true;
    /**
     * record --stacks N: the agent keeps each trapped reference's call stack, up to this many
     * frames, on the faulting thread (in-thread engines only); 0: none.
     */
    public int stackFrames;
    /**
     * The system-call gate records kernel events (open, close, dup, read, write, truncate, unlink,
     * rename, shmat, shmdt: trace-format/FORMAT.md) unless false (record --no-kernel-events).
     */
    public boolean kernelEvents = true;
    /**
     * Monitor mode (faultline monitor) when positive: the agents record nothing and keep no EVMS;
     * each slot gets a sampling board of this many entries for DAMON's access checks.
     */
    public int boardEntries;
    /**
     * Moca's interval mode when positive (Beniamine and Huard, "Moca: an efficient memory trace
     * collection system", 2016): no EVMS; every page referenced in an interval is disabled again
     * at its end, and each thread's faults of the interval form one chunk. Nanoseconds.
     */
    public long mocaIntervalNs;
    /** Without {@link #follow}: trace the first process's later images (after exec) too. */
    public boolean followExec;
    public boolean quiet;
    /** An existing trace at {@link #output} is replaced (record --force); anything else there is refused. */
    public boolean replace;
    public List<String> command = new ArrayList<>();

    /** Bytes per page of this machine, at which {@link #evmsPages} given in bytes are counted. */
    public static int systemPageSize()
    {
        return Libc.INSTANCE.getpagesize();
    }

    public String scopeName()
    {
        return scope == io.faultline.format.ShmLayout.SCOPE_API ? "api" : "all";
    }

    /** The header's {@code mode}: {@code trace} or {@code moca}. */
    public String modeName()
    {
        return mocaIntervalNs > 0 ? "moca" : "trace";
    }

    /** The header's {@code engine}: {@code uffd}, {@code mprotect} or {@code sigbus}. */
    public String engineName()
    {
        return engineName(engine);
    }

    /** An engine's name on the command line and in the header. */
    public static String engineName(final int engine)
    {
        return switch (engine)
        {
            case io.faultline.format.ShmLayout.ENGINE_MPROTECT -> "mprotect";
            case io.faultline.format.ShmLayout.ENGINE_SIGBUS -> "sigbus";
            default -> "uffd";
        };
    }

    /** Whether the engine resolves faults on the faulting thread (kernel-mode accesses to disabled pages then fail). */
    public boolean inThreadEngine()
    {
        return engine != io.faultline.format.ShmLayout.ENGINE_UFFD;
    }

    /** The header's {@code policy}: {@code fifo} or {@code segq}. */
    public String policyName()
    {
        return policy == io.faultline.format.ShmLayout.POLICY_FIFO ? "fifo" : "segq";
    }

    /** The header's {@code trail}: how the trailing segment evicts, {@code none} under fifo. */
    public String trailName()
    {
        return switch (policy)
        {
            case io.faultline.format.ShmLayout.POLICY_SEGQ_CLOCK -> "clock";
            case io.faultline.format.ShmLayout.POLICY_SEGQ_FIFO -> "fifo";
            default -> "none";
        };
    }

    /** Pages of the leading segment: all of the EVMS under fifo. */
    public int effectiveLeadPages()
    {
        return policy == io.faultline.format.ShmLayout.POLICY_FIFO ? evmsPages : leadPages;
    }

    /**
     * The arguments the Java API and the JMH profiler give a recorder they start themselves
     * ({@link AttachedRecorder}, {@link Recorder#main}): {@code -q}, {@code -o DIR},
     * {@code --evms N}, {@code --scope all|api}, {@code --ring-size BYTES}, {@code --chunk-records N},
     * then {@code --} and the program. Written by programs, not people: the user's command line
     * is {@code faultline record}'s (tools' RecordCommand), with its one grammar and its checks.
     */
    public static RecordOptions internal(final List<String> args)
    {
        final RecordOptions options = new RecordOptions();
        int i = 0;
        for (; i < args.size() && !args.get(i).equals("--"); i++)
        {
            final String arg = args.get(i);
            switch (arg)
            {
                case "-q" -> options.quiet = true;
                case "-o" -> options.output = Path.of(next(args, ++i, arg));
                case "--evms" -> options.evmsPages = Integer.parseInt(next(args, ++i, arg));
                case "--scope" -> options.scope = next(args, ++i, arg).equals("api")
                    ? io.faultline.format.ShmLayout.SCOPE_API : io.faultline.format.ShmLayout.SCOPE_ALL;
                case "--ring-size" -> options.ringCapacity = Integer.parseInt(next(args, ++i, arg));
                case "--chunk-records" -> options.chunkRecords = Integer.parseInt(next(args, ++i, arg));
                default -> throw new RecordException("internal recorder arguments: unknown " + arg);
            }
        }
        options.command = new ArrayList<>(args.subList(Math.min(i + 1, args.size()), args.size()));
        if (options.output == null || options.evmsPages < MIN_EVMS_PAGES || options.evmsPages > MAX_EVMS_PAGES)
        {
            throw new RecordException("internal recorder arguments: need -o DIR and --evms of " + EVMS_RANGE);
        }
        return options;
    }

    private static String next(final List<String> args, final int i, final String option)
    {
        if (i >= args.size())
        {
            throw new RecordException("internal recorder arguments: " + option + " needs a value");
        }
        return args.get(i);
    }
}
