package io.faultline.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import io.faultline.format.ReadSummary;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;

/**
 * {@code faultline dump [--format text|csv] [--pid N] [--tid N] DIR}: one line per reference in
 * trace order, global seq order across processes. CSV has the header
 * {@code seq,time_ns,pid,tid,kind,address}; text also shows events, as lines starting with
 * {@code --}.
 */
public final class DumpCommand implements Command
{
    private static final String USAGE = "usage: faultline dump [--format text|csv] [--pid N] [--tid N] [--no-events]"
        + " [--skip-corrupt] TRACE_DIR";

    /** Stops the reader once the consumer is gone (dump | head). */
    private static final class OutputClosed extends RuntimeException
    {
        OutputClosed()
        {
            super(null, null, false, false);
        }
    }

    @Override
    public String name()
    {
        return "dump";
    }

    @Override
    public String summary()
    {
        return "print every reference of a trace, as text or CSV";
    }

    @Override
    public int run(final List<String> args, final PrintStream out, final PrintStream err)
    {
        boolean csv = false;
        boolean events = true;
        boolean skipCorrupt = false;
        int pidFilter = -1;
        int tidFilter = -1;
        final List<String> operands = new ArrayList<>();
        for (int i = 0; i < args.size(); i++)
        {
            final String arg = args.get(i);
            switch (arg)
            {
                case "-h", "--help" -> {
                    out.println(USAGE);
                    return 0;
                }
                case "--format" -> {
                    final String format = value(args, ++i, arg);
                    if (!format.equals("csv") && !format.equals("text"))
                    {
                        throw new CliException("unknown dump format '" + format + "'; use --format text or --format csv");
                    }
                    csv = format.equals("csv");
                }
                case "--pid" -> pidFilter = TraceArguments.intValue(arg, value(args, ++i, arg));
                case "--tid" -> tidFilter = TraceArguments.intValue(arg, value(args, ++i, arg));
                case "--no-events" -> events = false;
                case "--skip-corrupt" -> skipCorrupt = true;
                default -> {
                    if (arg.startsWith("-"))
                    {
                        throw new CliException("unknown option " + arg + "; " + USAGE);
                    }
                    operands.add(arg);
                }
            }
        }
        final String path = TraceArguments.single(operands, USAGE);
        final boolean asCsv = csv;
        final boolean withEvents = events && !csv;
        final int pid = pidFilter;
        final int tid = tidFilter;
        try (TraceReader reader = TraceArguments.open(path, skipCorrupt))
        {
            out.println(asCsv ? "seq,time_ns,pid,tid,kind,address" : "#seq time_ns pid tid kind address");
            final StringBuilder line = new StringBuilder(64);
            final long[] lines = new long[1];
            final ReadSummary summary = reader.forEach(new TraceVisitor()
            {
                @Override
                public void onReference(final long seq, final long timeNs, final int p, final int t,
                    final long address, final boolean write)
                {
                    if ((pid >= 0 && p != pid) || (tid >= 0 && t != tid))
                    {
                        return;
                    }
                    final char sep = asCsv ? ',' : ' ';
                    line.setLength(0);
                    line.append(seq).append(sep).append(timeNs).append(sep).append(p).append(sep).append(t)
                        .append(sep).append(write ? 'w' : 'r').append(sep).append("0x").append(Long.toHexString(address));
                    emit(out, line, lines);
                }

                @Override
                public void onEvent(final TraceEvent e)
                {
                    if (!withEvents || (pid >= 0 && e.pid() != pid) || (tid >= 0 && e.tid() != tid))
                    {
                        return;
                    }
                    line.setLength(0);
                    line.append("-- ").append(e.seq()).append(' ').append(e.timeNs()).append(' ').append(e.pid())
                        .append(' ').append(e.tid()).append(' ')
                        .append(e.type() == null ? "event-" + e.code() : e.type().label());
                    appendFields(line, e);
                    emit(out, line, lines);
                }
            });
            out.flush();
            summary.notes(reader.dir()).forEach(err::println);
        }
        catch (final OutputClosed ignored)
        {
            return 0;
        }
        catch (final TraceFormatException ex)
        {
            out.flush();
            throw new CliException(ex.getMessage(), 1);
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

    private static String value(final List<String> args, final int i, final String option)
    {
        if (i >= args.size())
        {
            throw new CliException("option " + option + " needs a value");
        }
        return args.get(i);
    }
}
