package io.faultline.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.sim.report.Written;
import io.faultline.sim.stacks.CallStacks;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline report callsites}: the code that made a trace's trapped references, from the
 * call stacks {@code record --stacks N} kept ({@link CallStacks}), as fltrace and drmemtrace tie
 * misses to code: the call sites (the faulting function by default, or its innermost K frames, or
 * whole stacks) by trapped references, with each function named from the program's and its
 * libraries' symbols.
 */
@Command(name = "callsites", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = {CallSitesCommand.USAGE_LINE},
    descriptionHeading = "%n", description = {
        "The call sites of a trace's trapped references, most first: a trace recorded with --stacks N.", "",
        "A call site is the innermost --depth frames of a reference's call stack (1: the function whose",
        "instruction faulted), printed innermost first, each frame as its function, or module+0xOFFSET",
        "(the file offset) where the file has no symbol for it, or its address outside every file.",
        "Functions are read from the files the trace names, as they are now on this machine.",
        "--csv writes every call site:", "  " + CallSitesCommand.HEADER,
        "frames innermost first, separated by ';'.", ""})
final class CallSitesCommand implements Callable<Integer>
{
    static final String USAGE_LINE = "faultline report callsites [--depth K | --full] [--top N] [--csv OUT] TRACE_DIR";
    static final String HEADER = "references,share,frames";
    private static final String USAGE = "usage: " + USAGE_LINE;

    @Option(names = "--depth", paramLabel = "K", description = "frames of a call site, from the faulting function "
        + "out; default 1; 1 to 65536")
    Integer depth;

    @Option(names = "--full", description = "whole stacks as call sites")
    boolean full;

    @Option(names = "--top", paramLabel = "N", description = "call sites printed; default 20, 0 for all; at least 0")
    int top = 20;

    @Option(names = "--csv", paramLabel = "OUT", description = "also write every call site as CSV to this file")
    Path csv;

    @Mixin
    SkipCorrupt corrupt;

    @Parameters(paramLabel = "TRACE_DIR", arity = "0..*", description = "a trace recorded with --stacks N")
    List<String> operands = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;

    CallSitesCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call()
    {
        if (full && depth != null)
        {
            throw new CliException("--full and --depth both say how deep a call site is; give one");
        }
        final int k = full ? Integer.MAX_VALUE : depth == null ? 1 : Values.between("--depth", depth, 1, 1 << 16);
        final int shown = Values.atLeast("--top", top, 0);
        final String path = TraceArguments.single(operands, USAGE);
        try (TraceReader reader = TraceArguments.open(path, corrupt.skip))
        {
            final CallStacks stacks = read(reader, path, err, -1, -1);
            final List<CallStacks.Stack> sites = stacks.callSites(k);
            print(sites, stacks, shown, k);
            if (csv != null)
            {
                final long start = System.nanoTime();
                try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8)))
                {
                    writeCsv(sites, stacks.references(), writer);
                }
                catch (final IOException | UncheckedIOException ex)
                {
                    throw new CliException("cannot write " + csv + ": " + ex.getMessage(), ExitStatus.ACCESS);
                }
                Written.report(err, sites.size() + " call sites as CSV", csv, start);
            }
        }
        return 0;
    }

    /** The trace's stacks; a trace without them is the user's mistake, said with the fix. */
    static CallStacks read(final TraceReader reader, final String path, final PrintStream err, final int pid,
        final int tid)
    {
        final String frames = reader.header().get(TraceHeader.STACK_FRAMES);
        if (frames == null || frames.trim().equals("0"))
        {
            throw new CliException(path + " was recorded without call stacks; record with --stacks N (e.g. --stacks 16)");
        }
        try
        {
            final CallStacks stacks = CallStacks.read(reader, pid, tid);
            for (final Map.Entry<String, String> e : stacks.unreadable().entrySet())
            {
                err.println("faultline: note: no symbols from " + e.getKey() + " (" + e.getValue()
                    + "): its frames print as module+offset");
            }
            return stacks;
        }
        catch (final TraceFormatException ex)
        {
            throw CliException.of(ex);
        }
    }

    private void print(final List<CallStacks.Stack> sites, final CallStacks stacks, final int shown, final int k)
    {
        final long total = stacks.references();
        out.printf(Locale.ROOT, "%,d trapped references, %,d with a call stack; call sites of %s%n", total,
            total - stacks.withoutStack(), k == Integer.MAX_VALUE ? "whole stacks" : k == 1 ? "the faulting function"
                : "the innermost " + k + " frames");
        out.printf(Locale.ROOT, "%12s %7s  %s%n", "references", "share", "call site (innermost first)");
        int n = 0;
        for (final CallStacks.Stack s : sites)
        {
            if (shown > 0 && n++ == shown)
            {
                out.printf(Locale.ROOT, "... %,d more call sites (--top 0 lists all)%n", sites.size() - shown);
                break;
            }
            out.printf(Locale.ROOT, "%,12d %6.2f%%  %s%n", s.references(), 100.0 * s.references() / Math.max(1, total),
                String.join(" <- ", s.frames()));
        }
        if (stacks.withoutStack() > 0)
        {
            out.printf(Locale.ROOT, "%,12d %6.2f%%  (no stack: %,d kernel references made in system calls, %,d past "
                + "the agent's full stack table)%n", stacks.withoutStack(), 100.0 * stacks.withoutStack() / Math.max(1, total),
                stacks.kernelReferences(), stacks.withoutStack() - stacks.kernelReferences());
        }
        out.flush();
    }

    static void writeCsv(final List<CallStacks.Stack> sites, final long total, final PrintWriter writer)
    {
        writer.print(HEADER + "\n");
        for (final CallStacks.Stack s : sites)
        {
            writer.printf(Locale.ROOT, "%d,%.6f,%s%n", s.references(), (double)s.references() / Math.max(1, total),
                csvField(String.join(";", s.frames())));
        }
        writer.flush();
    }

    private static String csvField(final String s)
    {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
