package io.faultline.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.KernelEvents;
import io.faultline.format.MappingNames;
import io.faultline.format.MocaChunk;
import io.faultline.format.ReadSummary;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;
import io.faultline.sim.trace.FaultlineCsvWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline dump [--format text|csv] [--pid N] [--tid N] DIR}: one line per reference
 * record and per eviction record (kind evict, with its tag) in trace order. CSV has the header
 * {@code seq,time_ns,pid,tid,kind,address,tag}; text also shows events, as lines starting with {@code --}.
 * A Moca trace ({@code record --mode moca}) has chunks instead: in text a line starting
 * {@code ==} per chunk, then a line per page with its read and write faults; in CSV a row per
 * page with the header {@value #MOCA_CSV_HEADER}.
 */
@Command(name = "dump", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = {DumpCommand.USAGE_LINE,
        "                      [--no-events] TRACE_DIR"},
    descriptionHeading = "%n", description = {
        DumpCommand.SUMMARY, "",
        "Reference records and eviction records (kind evict, tag r, w, R or W) come in trace order.",
        "Text also shows events, as lines starting --; CSV has the header " + DumpCommand.CSV_HEADER + ".",
        "A Moca trace (record --mode moca) shows its chunks: a line starting == per chunk, then one per page",
        "with its read and write faults; CSV has the header " + DumpCommand.MOCA_CSV_HEADER + ".", ""},
    modelTransformer = DumpCommand.Wording.class)
final class DumpCommand implements Callable<Integer>
{
    /** --pid and --tid keep a process's or thread's events too. */
    static final class Wording extends OptionWording
    {
        @Override
        protected Object[][] getContents()
        {
            return new Object[][] {
                {"pid", "only this process's references and events"},
                {"tid", "only this thread's references and events"}};
        }
    }

    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "Print every reference of a trace, as text or CSV.";

    static final String CSV_HEADER = FaultlineCsvWriter.HEADER;
    static final String MOCA_CSV_HEADER = "pid,tid,chunk_id,interval,close_seq,seq,time_ns,kind,address,reads,writes";
    static final String USAGE_LINE = "faultline dump [--format text|csv] [--pid N] [--tid N] [--from T] [--until T]";
    private static final String USAGE = "usage: " + USAGE_LINE + " [--no-events] TRACE_DIR";

    /** The output formats, for shell completion. */
    static final class Formats extends ArrayList<String>
    {
        Formats()
        {
            super(List.of("text", "csv"));
        }
    }

    /** Stops the reader once the consumer is gone (dump | head). */
    private static final class OutputClosed extends RuntimeException
    {
        OutputClosed()
        {
            super(null, null, false, false);
        }
    }

    @Option(names = "--format", paramLabel = "text|csv", completionCandidates = Formats.class,
        description = "text (default) or CSV")
    String format = "text";

    @Mixin
    ProcessFilter filter;

    @Option(names = "--from", paramLabel = "T", description = "only from T after the program's start (e.g. 1.5s; "
        + "units ns, us, ms, s, m)")
    Duration from;

    @Option(names = "--until", paramLabel = "T", description = "only before T after the program's start")
    Duration until;

    @Option(names = "--no-events", description = "leave out events (CSV has none)")
    boolean noEvents;

    @Parameters(paramLabel = "TRACE_DIR", arity = "0..*", description = "a trace directory written by faultline record")
    List<String> operands = new ArrayList<>();

    @Mixin
    SkipCorrupt corrupt;

    private final PrintStream out;
    private final PrintStream err;

    DumpCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call()
    {
        if (!format.equals("csv") && !format.equals("text"))
        {
            throw new CliException("unknown dump format '" + format + "'; use --format text or --format csv");
        }
        final int pid = filter.pid();
        final int tid = filter.tid();
        final long fromNs = from == null ? Long.MIN_VALUE : from.toNanos();
        final long untilNs = until == null ? Long.MAX_VALUE : until.toNanos();
        final String path = TraceArguments.single(operands, USAGE);
        final boolean asCsv = format.equals("csv");
        final boolean withEvents = !noEvents && !asCsv;
        try (TraceReader reader = TraceArguments.open(path, corrupt.skip))
        {
            final boolean moca = reader.header().isMoca();
            out.println(asCsv ? (moca ? MOCA_CSV_HEADER : CSV_HEADER)
                : moca ? "#== close_seq close_ns pid tid chunk ID interval N pages N clock START-END\n#seq time_ns pid tid kind address reads writes"
                : "#seq time_ns pid tid kind address tag mapping");
            final StringBuilder line = new StringBuilder(64);
            // the text format's last column: the mapping of each record's address ([heap], [stack:TID], a file)
            final MappingNames names = new MappingNames();
            final long[] lines = new long[1];
            final ReadSummary summary = reader.forEach(new TraceVisitor()
            {
                @Override
                public void onReference(final long seq, final long timeNs, final int p, final int t,
                    final long address, final boolean write)
                {
                    onReference(seq, timeNs, p, t, address, write, false);
                }

                @Override
                public void onReference(final long seq, final long timeNs, final int p, final int t,
                    final long address, final boolean write, final boolean kernel)
                {
                    if ((pid >= 0 && p != pid) || (tid >= 0 && t != tid) || timeNs < fromNs || timeNs >= untilNs)
                    {
                        return;
                    }
                    line.setLength(0);
                    FaultlineCsvWriter.append(line, asCsv ? ',' : ' ', seq, timeNs, p, t, address, write);
                    if (asCsv)
                    {
                        line.append(kernel ? ",k" : ","); // a reference's tag: k for the kernel's, else empty
                    }
                    else if (kernel)
                    {
                        line.append(" k");
                    }
                    else
                    {
                        line.append(" - ").append(names.name(p, address)); // no tag: a reference record
                    }
                    emit(out, line, lines);
                }

                @Override
                public void onEvent(final TraceEvent e)
                {
                    names.onEvent(e);
                    if (e.type() == EventType.EVICT)
                    {
                        eviction(e);
                        return;
                    }
                    if (!withEvents || (pid >= 0 && e.pid() != pid) || (tid >= 0 && e.tid() != tid)
                        || e.timeNs() < fromNs || e.timeNs() >= untilNs)
                    {
                        return;
                    }
                    line.setLength(0);
                    line.append("-- ").append(e.seq()).append(' ').append(e.timeNs()).append(' ').append(e.pid())
                        .append(' ').append(e.tid()).append(' ')
                        .append(e.label());
                    if (KernelEvents.is(e))
                    {
                        KernelEvents.describe(line, e);
                    }
                    else
                    {
                        appendFields(line, e);
                    }
                    emit(out, line, lines);
                }

                @Override
                public void onMocaChunk(final MocaChunk c)
                {
                    if ((pid >= 0 && c.pid() != pid) || (tid >= 0 && c.tid() != tid) || c.closeNs() < fromNs
                        || c.closeNs() >= untilNs)
                    {
                        return;
                    }
                    if (!asCsv)
                    {
                        line.setLength(0);
                        line.append("== ").append(c.closeSeq()).append(' ').append(c.closeNs()).append(' ').append(c.pid())
                            .append(' ').append(c.tid()).append(" chunk ").append(c.chunkId()).append(" interval ")
                            .append(c.interval()).append(" pages ").append(c.pages()).append(" clock ")
                            .append(c.startSeq()).append('-').append(c.endSeq());
                        emit(out, line, lines);
                    }
                    for (int i = 0; i < c.pages(); i++)
                    {
                        line.setLength(0);
                        final boolean write = (c.flags(i) & ChunkDescriptor.REC_WRITE) != 0;
                        if (asCsv)
                        {
                            line.append(c.pid()).append(',').append(c.tid()).append(',').append(c.chunkId()).append(',')
                                .append(c.interval()).append(',').append(c.closeSeq()).append(',').append(c.seq(i))
                                .append(',').append(c.timeNs(i)).append(',').append(write ? 'w' : 'r').append(",0x")
                                .append(Long.toHexString(c.address(i))).append(',').append(c.reads(i)).append(',')
                                .append(c.writes(i));
                        }
                        else
                        {
                            FaultlineCsvWriter.append(line, ' ', c.seq(i), c.timeNs(i), c.pid(), c.tid(), c.address(i), write)
                                .append(' ').append(c.reads(i)).append(' ').append(c.writes(i));
                        }
                        emit(out, line, lines);
                    }
                }

                /** an eviction record is a record, not an event: a row, in CSV too */
                private void eviction(final TraceEvent e)
                {
                    if ((pid >= 0 && e.pid() != pid) || (tid >= 0 && e.tid() != tid) || e.timeNs() < fromNs
                        || e.timeNs() >= untilNs)
                    {
                        return;
                    }
                    line.setLength(0);
                    FaultlineCsvWriter.appendEviction(line, asCsv ? ',' : ' ', e.seq(), e.timeNs(), e.pid(), e.tid(), e.a(),
                        (char)e.b());
                    if (!asCsv)
                    {
                        line.append(' ').append(names.name(e.pid(), e.a()));
                    }
                    emit(out, line, lines);
                }
            });
            out.flush();
            summary.notes(reader.dir()).forEach(err::println); // partial, or excerpts skipped
        }
        catch (final OutputClosed ignored)
        {
            return 0;
        }
        catch (final TraceFormatException ex)
        {
            out.flush();
            throw CliException.of(ex);
        }
        return 0;
    }

    private static void appendFields(final StringBuilder line, final TraceEvent e)
    {
        final String[] names = {"a", "b", "c", "d"};
        final long[] values = {e.a(), e.b(), e.c(), e.d()};
        for (int i = 0; i < 4; i++)
        {
            if (values[i] != 0)
            {
                line.append(' ').append(names[i]).append("=0x").append(Long.toHexString(values[i]));
            }
        }
        if (!e.text().isEmpty())
        {
            line.append(' ').append(e.text());
        }
    }

    private static void emit(final PrintStream out, final CharSequence line, final long[] lines)
    {
        out.append(line).append('\n');
        if ((++lines[0] & 4095) == 0 && out.checkError())
        {
            throw new OutputClosed();
        }
    }
}
