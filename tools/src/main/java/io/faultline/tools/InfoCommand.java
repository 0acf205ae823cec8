package io.faultline.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import io.faultline.format.EventType;
import io.faultline.format.MappingNames;
import io.faultline.format.MocaChunk;
import io.faultline.format.ReadSummary;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceVisitor;
import io.faultline.sim.trace.PageKey;
import io.faultline.tracer.TraceStats;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongHashSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline info DIR}: what was traced, how, and the totals; reads the whole trace once
 * so a truncated or corrupt one is reported instead of described.
 */
@Command(name = "info", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = "faultline info [--skip-corrupt] TRACE_DIR",
    descriptionHeading = "%n",
    description = {InfoCommand.SUMMARY, ""},
    modelTransformer = InfoCommand.Wording.class)
final class InfoCommand implements Callable<Integer>
{
    /** info prints the count of corrupt excerpts with the totals, on standard output. */
    static final class Wording extends OptionWording
    {
        @Override
        protected Object[][] getContents()
        {
            return new Object[][] {{"skip-corrupt", "read past corrupt excerpts, counting them"}};
        }
    }

    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "Describe a trace: configuration, duration, processes, threads, totals.";

    private static final String USAGE = "usage: faultline info [--skip-corrupt] TRACE_DIR";

    @Parameters(paramLabel = "TRACE_DIR", arity = "0..*", description = "a trace directory written by faultline record")
    List<String> operands = new ArrayList<>();

    @picocli.CommandLine.Mixin
    SkipCorrupt corrupt;

    private final PrintStream out;

    private final PrintStream err;

    InfoCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call()
    {
        final String path = TraceArguments.single(operands, USAGE);
        try (TraceReader reader = TraceArguments.open(path, corrupt.skip))
        {
            final ReadSummary summary;
            final Mappings mappings = new Mappings(reader.header().pageSize());
            try
            {
                summary = reader.forEach(mappings);
            }
            catch (final TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
            if (reader.isPartial())
            {
                printPartial(out, path, reader, summary);
            }
            else
            {
                print(out, path, reader, mappings);
                mappings.print(out);
            }
            if (summary.skipped() > 0 || summary.unreadable() != null)
            {
                summary.notes(reader.dir()).stream().filter(n -> !n.startsWith("trace ")).forEach(err::println);
            }
        }
        return 0;
    }

    /**
     * References per mapping ({@link MappingNames}: [heap], [stack:TID], [anon], a file's .bss),
     * as perf report --sort dso counts samples per dso, and the pages written: those whose
     * eviction record is tagged dirty (w or W), or in a Moca trace those with a write fault.
     */
    private static final class Mappings implements TraceVisitor
    {
        /** A mapping's read faults, write faults, pages and pages written. */
        private static final class Counts
        {
            long reads;
            long writes;
            final LongHashSet pages = new LongHashSet();
            final LongHashSet written = new LongHashSet();
        }

        private final MappingNames names = new MappingNames();
        private final Map<String, Counts> counts = new HashMap<>();
        /** Each page's mapping, as of its last reference: an evicted page's mapping may be gone (munmap). */
        private final Long2ObjectHashMap<Counts> pageMapping = new Long2ObjectHashMap<>();
        private final LongHashSet written = new LongHashSet();
        private final int pageShift;

        Mappings(final int pageSize)
        {
            pageShift = Integer.numberOfTrailingZeros(pageSize);
        }

        @Override
        public void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
            final boolean write)
        {
            final Counts c = counts.computeIfAbsent(names.name(pid, address), n -> new Counts());
            if (write)
            {
                c.writes++;
            }
            else
            {
                c.reads++;
            }
            final long page = PageKey.ofShift(pid, address, pageShift);
            c.pages.add(page);
            pageMapping.put(page, c);
        }

        @Override
        public void onEvent(final TraceEvent event)
        {
            names.onEvent(event);
            if (event.type() == EventType.EVICT && TraceStats.isDirtyTag(event.b()))
            {
                wrote(PageKey.ofShift(event.pid(), event.a(), pageShift));
            }
        }

        @Override
        public void onMocaChunk(final MocaChunk chunk)
        {
            for (int i = 0; i < chunk.pages(); i++)
            {
                if (chunk.writes(i) > 0)
                {
                    wrote(PageKey.ofShift(chunk.pid(), chunk.address(i), pageShift));
                }
            }
        }

        private void wrote(final long page)
        {
            written.add(page);
            final Counts c = pageMapping.get(page);
            if (c != null)
            {
                c.written.add(page);
            }
        }

        long writtenPages()
        {
            return written.size();
        }

        void print(final PrintStream out)
        {
            if (counts.isEmpty())
            {
                return;
            }
            out.println();
            out.printf("%-24s %12s %12s %12s %12s %14s%n", "mapping", "references", "read faults", "write faults", "pages",
                "pages written");
            counts.entrySet().stream()
                .sorted((x, y) -> Long.compare(y.getValue().reads + y.getValue().writes, x.getValue().reads
                    + x.getValue().writes))
                .forEach(e -> out.printf(Locale.ROOT, "%-24s %,12d %,12d %,12d %,12d %,14d%n", e.getKey(),
                    e.getValue().reads + e.getValue().writes, e.getValue().reads, e.getValue().writes,
                    e.getValue().pages.size(), e.getValue().written.size()));
        }
    }

    /**
     * A trace still being recorded, or whose recorder died or stopped early: what the header
     * knows from the start, and how far the queue goes.
     */
    private static void printPartial(final PrintStream out, final String path, final TraceReader reader,
        final ReadSummary s)
    {
        final TraceHeader h = reader.header();
        origin(out, path, h);
        startUp(out, reader);
        final String cause = h.get(TraceHeader.STOP_CAUSE);
        row(out, "state", String.format(java.util.Locale.ROOT, "%s; readable up to excerpt %d at %.3f s",
            reader.isLive() ? "recording: the recorder is still writing it"
                : cause == null ? "incomplete: the recorder stopped before finishing"
                : String.format(java.util.Locale.ROOT, "incomplete: the recording stopped at %.3f s (%s), the program ran on untraced",
                    reader.sinceProgramStart(h.longValue(TraceHeader.STOPPED_NS)) / 1e9, cause),
            s.lastExcerpt(), s.lastTimeNs() / 1e9));
        row(out, "processes", String.valueOf(s.processes()));
        row(out, "references", String.format("%,d", s.references()));
        row(out, "excerpts", String.format("%,d, events %,d", s.excerpts(), s.events()));
    }

    /**
     * The recorder's start-up, shown once and apart: every other time a command shows counts from
     * the program's start (its first process-start event), which this much of the recording
     * preceded (its queue, the program's exec, the agent's start).
     */
    private static void startUp(final PrintStream out, final TraceReader reader)
    {
        final long start = reader.programStartNs();
        if (start > 0)
        {
            row(out, "start-up", String.format(Locale.ROOT, "%.3f s of the recorder's before the program started (times"
                + " count from the program's start)", start / 1e9));
        }
    }

    /** What was traced, where, and how: all known from the header written at the start. */
    private static void origin(final PrintStream out, final String path, final TraceHeader h)
    {
        final long pageSize = h.pageSize();
        row(out, "trace", path);
        row(out, "command", h.get(TraceHeader.COMMAND));
        row(out, "recorded", h.get(TraceHeader.START_TIME) + " on " + h.get(TraceHeader.HOST) + " ("
            + h.get(TraceHeader.KERNEL) + "), faultline " + h.get(TraceHeader.FAULTLINE_VERSION) + ", format "
            + h.get(TraceHeader.FORMAT_VERSION));
        if (h.isMoca())
        {
            row(out, "configuration", "mode moca, interval " + Durations.format(h.longValue(TraceHeader.INTERVAL_NS) / 1_000)
                + " (every page referenced in an interval disabled at its end; no EVMS), scope " + h.get(TraceHeader.SCOPE)
                + ", page size " + pageSize + ", "
                + ("true".equals(h.get(TraceHeader.FOLLOW_FORKS)) ? "follows forks" : "first process only")
                + ", ring " + bytes(h.longValue(TraceHeader.RING_CAPACITY)));
            return;
        }
        final long evms = h.longValue(TraceHeader.EVMS_PAGES);
        final String policy = "segq".equals(h.get(TraceHeader.POLICY)) ? "segq (lead " + h.get(TraceHeader.LEAD_PAGES)
            + ", trail " + h.get(TraceHeader.TRAIL) + ")" : h.get(TraceHeader.POLICY);
        row(out, "configuration", "evms " + evms + " pages (" + bytes(evms * pageSize) + "), policy "
            + policy + ("false".equals(h.get(TraceHeader.DIRTY_TRACKING)) ? " without dirty tracking" : "")
            + ("false".equals(h.get(TraceHeader.KERNEL_EVENTS)) ? ", no kernel events" : "")
            + ", scope " + h.get(TraceHeader.SCOPE)
            + (h.get(TraceHeader.ENGINE) == null ? "" : ", engine " + h.get(TraceHeader.ENGINE))
            + (h.get(TraceHeader.STACK_FRAMES) == null || h.get(TraceHeader.STACK_FRAMES).trim().equals("0") ? ""
                : ", call stacks of up to " + h.get(TraceHeader.STACK_FRAMES).trim() + " frames")
            + ", page size " + pageSize
            + ", " + ("true".equals(h.get(TraceHeader.FOLLOW_FORKS)) ? "follows forks" : "first process only")
            + ", ring " + bytes(h.longValue(TraceHeader.RING_CAPACITY)) + ", chunks of up to "
            + h.get(TraceHeader.CHUNK_RECORDS) + " records");
    }

    private static void print(final PrintStream out, final String path, final TraceReader reader, final Mappings mappings)
    {
        final TraceHeader h = reader.header();
        final long pageSize = h.pageSize();
        origin(out, path, h);
        startUp(out, reader);
        row(out, "duration", String.format("%.3f s", reader.sinceProgramStart(h.longValue(TraceHeader.DURATION_NS)) / 1e9)
            + " from the program's start to its exit, exit status " + h.get(TraceHeader.EXIT_STATUS));
        row(out, "processes", h.get(TraceHeader.PROCESSES));
        row(out, "threads", h.get(TraceHeader.THREADS));
        row(out, h.isMoca() ? "pages" : "references", String.format("%,d (read faults %,d, write faults %,d)%s",
            h.longValue(TraceHeader.REFERENCES), h.longValue(TraceHeader.READS), h.longValue(TraceHeader.WRITES),
            h.isMoca() ? ": a thread's pages per interval, by their first fault" : ""));
        published(out, h);
        final long pages = h.longValue(TraceHeader.DISTINCT_PAGES);
        row(out, "distinct pages", String.format("%,d (%s)", pages, bytes(pages * pageSize)));
        row(out, "pages written", String.format("%,d of them (%s)%s", mappings.writtenPages(),
            bytes(mappings.writtenPages() * pageSize), h.isMoca() ? ", by their write faults"
                : "false".equals(h.get(TraceHeader.DIRTY_TRACKING))
                ? ", by their eviction records: without dirty tracking, only those whose fault was a write"
                : ", by the dirty tags of their eviction records"));
        row(out, "ring waits", String.format("%,d (%.3f s waiting)", h.longValue(TraceHeader.RING_WAITS),
            h.longValue(TraceHeader.RING_WAIT_NS) / 1e9));
        if (h.isMoca())
        {
            final long disabled = h.longValue(TraceHeader.EVICTIONS);
            final long ns = h.longValue(TraceHeader.DISABLE_NS);
            row(out, "disabled", String.format("%,d pages at interval ends, %.3f s (%s per page)", disabled, ns / 1e9,
                disabled == 0 ? "-" : String.format("%.2f us", ns / 1e3 / disabled)));
        }
        else
        {
            row(out, "evictions", String.format("%,d", h.longValue(TraceHeader.EVICTIONS)));
        }
        row(out, "races", String.format("%,d (resolved by wake or retry)", h.longValue(TraceHeader.RACES)));
        row(out, "chunks", String.format("%,d, events %,d", h.longValue(TraceHeader.CHUNKS), h.longValue(TraceHeader.EVENTS)));
        out.println();
        out.printf("%-10s %-10s %12s %12s %12s  %s%n", "pid", "ppid", "references", "", "", "executable");
        for (final Map.Entry<String, String> e : h.values().entrySet())
        {
            if (e.getKey().startsWith(TraceHeader.PROCESS_PREFIX))
            {
                final Map<String, String> f = fields(e.getValue(), "exe");
                out.printf("%-10s %-10s %12s %12s %12s  %s%n", e.getKey().substring(TraceHeader.PROCESS_PREFIX.length()),
                    f.get("ppid"), count(f.get("references")), "", "", f.getOrDefault("exe", ""));
            }
        }
        untraced(out, h);
        out.println();
        out.printf("%-10s %-10s %12s %12s %12s  %s%n", "tid", "pid", "references", "read faults", "write faults",
            "name");
        for (final Map.Entry<String, String> e : h.values().entrySet())
        {
            if (e.getKey().startsWith(TraceHeader.THREAD_PREFIX))
            {
                final Map<String, String> f = fields(e.getValue(), "name");
                final String published = f.get("published");
                out.printf("%-10s %-10s %12s %12s %12s  %s%s%n", e.getKey().substring(TraceHeader.THREAD_PREFIX.length()),
                    f.get("pid"), count(f.get("references")), count(f.get("reads")), count(f.get("writes")),
                    f.getOrDefault("name", ""), published == null || published.equals(f.get("references")) ? ""
                        : "  (its agent published " + count(published) + ")");
            }
        }
    }

    /** The programs the agent could not follow: none of their references is in the trace (event untraced). */
    private static void untraced(final PrintStream out, final TraceHeader h)
    {
        boolean first = true;
        for (final Map.Entry<String, String> e : h.values().entrySet())
        {
            if (!e.getKey().startsWith(TraceHeader.UNTRACED_PREFIX))
            {
                continue;
            }
            if (first)
            {
                out.println();
                out.printf("%-10s %s%n", "untraced", "executable: why the agent could not follow it (none of its references is in the trace)");
                first = false;
            }
            final Map<String, String> f = fields(e.getValue(), "exe");
            int why = 0;
            int machine = 0;
            try
            {
                why = Integer.parseInt(f.getOrDefault("why", "0"));
                machine = Integer.parseInt(f.getOrDefault("machine", "0"));
            }
            catch (final NumberFormatException ex)
            {
                // a header written by hand: the reason stays unknown
            }
            out.printf("%-10s %s: %s%n", e.getKey().substring(TraceHeader.UNTRACED_PREFIX.length()), f.getOrDefault("exe", ""),
                io.faultline.tracer.TraceStats.reason(why, machine));
        }
    }

    /**
     * What the agents published against what the trace holds: in total, and per thread against
     * the agents' thread ledgers (absent in traces recorded before them).
     */
    private static void published(final PrintStream out, final TraceHeader h)
    {
        if (h.get(TraceHeader.AGENT_RECORDS) == null)
        {
            return;
        }
        final long agents = h.longValue(TraceHeader.AGENT_RECORDS);
        final long lost = agents - h.longValue(TraceHeader.REFERENCES);
        final String unmatched = h.get(TraceHeader.UNMATCHED_THREADS);
        final String threads = unmatched == null ? ""
            : "0".equals(unmatched) ? "; every thread's records as its agent counted them"
            : "; " + unmatched + " thread(s) not as their agents counted them (below)";
        row(out, "published", String.format("%,d by the agents, %s%s", agents,
            lost == 0 ? "all in the trace" : lost > 0 ? String.format("%,d of them not in the trace", lost)
                : String.format("the trace holds %,d more", -lost), threads));
    }

    /** Parses "k=v k=v last=rest of line": the field named {@code last} takes the remainder, spaces and all. */
    private static Map<String, String> fields(final String value, final String last)
    {
        final Map<String, String> fields = new java.util.HashMap<>();
        final int tail = value.indexOf(" " + last + "=");
        final String head = tail >= 0 ? value.substring(0, tail) : value;
        if (tail >= 0)
        {
            fields.put(last, value.substring(tail + last.length() + 2));
        }
        for (final String part : head.trim().split(" +"))
        {
            final int eq = part.indexOf('=');
            if (eq > 0)
            {
                fields.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        return fields;
    }

    /** A count from the header with thousands separators (207,595); anything not a number as it is. */
    private static String count(final String value)
    {
        try
        {
            return String.format(Locale.ROOT, "%,d", Long.parseLong(value));
        }
        catch (final NumberFormatException ex)
        {
            return String.valueOf(value);
        }
    }

    private static void row(final PrintStream out, final String name, final String value)
    {
        out.printf("%-15s %s%n", name, value);
    }

    static String bytes(final long bytes)
    {
        if (bytes >= 1L << 30)
        {
            return String.format("%.1f GiB", bytes / (double)(1L << 30));
        }
        if (bytes >= 1L << 20)
        {
            return String.format("%.1f MiB", bytes / (double)(1L << 20));
        }
        if (bytes >= 1L << 10)
        {
            return String.format("%.1f KiB", bytes / 1024.0);
        }
        return bytes + " B";
    }
}
