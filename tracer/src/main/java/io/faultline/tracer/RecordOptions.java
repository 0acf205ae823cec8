package io.faultline.tracer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Options of {@code faultline record}, parsed from the command line. Defaults follow kVMTrace:
 * an EVMS of 512 pages (2 MiB), FIFO, every private anonymous writable mapping.
 */
public final class RecordOptions
{
    public static final String USAGE = String.join("\n",
        "usage: faultline record -o DIR [options] -- PROGRAM [ARGS...]",
        "  -o, --output DIR     trace directory to create (new or empty)",
        "  --evms N             enabled pages (the evicted virtual mapping set); default 512 (2 MiB), at least 16",
        "  --scope all|api      all: every private anonymous writable mapping (default);",
        "                       api: only ranges passed to faultline_trace_range()",
        "  --policy fifo        which enabled page to disable next (FIFO, as kVMTrace)",
        "  --ring-size BYTES    ring per process, a power of two with K/M suffix; default 4M",
        "  --chunk-records N    most records in one chunk; default 256",
        "  --no-follow          trace only the first process, not its children",
        "  --max-processes N    process images traced at most (each fork child and each exec takes one); default 64",
        "  -q, --quiet          no summary line at the end",
        "The exit status is the program's (128+N if signal N killed it).");

    /**
     * Fewest enabled pages: every page one instruction touches must be enabled at once for it
     * to complete, and an x86 instruction can touch many (an AVX-512 gather up to 16 elements).
     */
    public static final int MIN_EVMS_PAGES = 16;

    /** Most process slots: each has its own ring in /dev/shm (sparse until written). */
    public static final int MAX_PROCESSES = 1024;

    public Path output;
    public int evmsPages = 512;
    public int scope = io.faultline.format.ShmLayout.SCOPE_ALL;
    public int policy = io.faultline.format.ShmLayout.POLICY_FIFO;
    public int ringCapacity = 4 << 20;
    public int chunkRecords = 256;
    public int slots = 64;
    public boolean follow = true;
    public boolean quiet;
    public List<String> command = new ArrayList<>();

    public String scopeName()
    {
        return scope == io.faultline.format.ShmLayout.SCOPE_API ? "api" : "all";
    }

    public String policyName()
    {
        return policy == io.faultline.format.ShmLayout.POLICY_CLOCK ? "clock" : "fifo";
    }

    /** @return null if the arguments asked for help */
    public static RecordOptions parse(final List<String> args)
    {
        final RecordOptions options = new RecordOptions();
        int i = 0;
        while (i < args.size())
        {
            final String arg = args.get(i);
            if (arg.equals("--"))
            {
                i++;
                break;
            }
            if (!arg.startsWith("-"))
            {
                break;
            }
            switch (arg)
            {
                case "-h", "--help" -> {
                    return null;
                }
                case "-o", "--output" -> options.output = Path.of(value(args, i++, arg));
                case "--evms" -> {
                    options.evmsPages = positive(value(args, i++, arg), arg, 1, 1 << 24);
                    if (options.evmsPages < MIN_EVMS_PAGES)
                    {
                        throw new RecordException("--evms must be at least " + MIN_EVMS_PAGES + ": one x86 instruction can "
                            + "need several pages at once (operands that straddle pages, string moves, gathers, the "
                            + "stack), and with fewer enabled pages it could fault forever: " + options.evmsPages);
                    }
                }
                case "--scope" -> {
                    final String scope = value(args, i++, arg);
                    options.scope = switch (scope)
                    {
                        case "all" -> io.faultline.format.ShmLayout.SCOPE_ALL;
                        case "api" -> io.faultline.format.ShmLayout.SCOPE_API;
                        default -> throw new RecordException("unknown scope '" + scope + "'; use --scope all or --scope api");
                    };
                }
                case "--policy" -> {
                    final String policy = value(args, i++, arg);
                    if (!policy.equals("fifo"))
                    {
                        throw new RecordException("unknown EVMS policy '" + policy + "'; the recorder supports: fifo");
                    }
                    options.policy = io.faultline.format.ShmLayout.POLICY_FIFO;
                }
                case "--ring-size" -> {
                    final long bytes = bytes(value(args, i++, arg), arg);
                    if (bytes < 64 * 1024 || bytes > (1L << 30) || Long.bitCount(bytes) != 1)
                    {
                        throw new RecordException("--ring-size must be a power of two from 64K to 1G: " + bytes);
                    }
                    options.ringCapacity = (int)bytes;
                }
                case "--chunk-records" -> options.chunkRecords = positive(value(args, i++, arg), arg, 1, 65536);
                case "--no-follow" -> options.follow = false;
                case "--max-processes" -> options.slots = positive(value(args, i++, arg), arg, 1, MAX_PROCESSES);
                case "-q", "--quiet" -> options.quiet = true;
                default -> throw new RecordException("unknown option " + arg + "; faultline record --help lists the options");
            }
            i++;
        }
        options.command = new ArrayList<>(args.subList(i, args.size()));
        if (options.output == null)
        {
            throw new RecordException("missing -o DIR: where to write the trace");
        }
        if (options.command.isEmpty())
        {
            throw new RecordException("missing program to trace: faultline record -o DIR -- PROGRAM [ARGS...]");
        }
        if (options.chunkRecords * 32L + 64 > options.ringCapacity / 8)
        {
            throw new RecordException("--chunk-records " + options.chunkRecords + " is too large for a ring of "
                + options.ringCapacity + " bytes; lower it or raise --ring-size");
        }
        return options;
    }

    private static String value(final List<String> args, final int i, final String option)
    {
        if (i + 1 >= args.size())
        {
            throw new RecordException("option " + option + " needs a value");
        }
        return args.get(i + 1);
    }

    private static int positive(final String text, final String option, final int min, final int max)
    {
        try
        {
            final int value = Integer.parseInt(text);
            if (value < min || value > max)
            {
                throw new RecordException(option + " must be between " + min + " and " + max + ": " + text);
            }
            return value;
        }
        catch (final NumberFormatException ex)
        {
            throw new RecordException(option + " needs a whole number: " + text);
        }
    }

    static long bytes(final String text, final String option)
    {
        final String t = text.trim().toUpperCase();
        long multiplier = 1;
        String digits = t;
        if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G"))
        {
            multiplier = switch (t.charAt(t.length() - 1))
            {
                case 'K' -> 1L << 10;
                case 'M' -> 1L << 20;
                default -> 1L << 30;
            };
            digits = t.substring(0, t.length() - 1);
        }
        try
        {
            return Long.parseLong(digits) * multiplier;
        }
        catch (final NumberFormatException ex)
        {
            throw new RecordException(option + " needs a size such as 4M: " + text);
        }
    }
}
