package io.faultline.sim.trace;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.sim.report.Progress;

/**
 * Which format and options to read a trace with (the replay commands' {@code --format},
 * {@code --page-size}, {@code --pid}, {@code --tid}, {@code --no-ifetch}, {@code --skip-corrupt}), and the reading of a
 * trace with them, reporting progress on stderr.
 */
public final class TraceInput
{
    private final Optional<String> format;
    private final TraceOptions options;

    /** @throws TraceException naming the known formats if {@code format} is not one */
    public TraceInput(final Optional<String> format, final TraceOptions options)
    {
        format.ifPresent(TraceFormats::get);
        this.format = format;
        this.options = options;
    }

    public TraceOptions options()
    {
        return options;
    }

    public Optional<String> format()
    {
        return format;
    }

    /** The format {@code path} will be read with. */
    public TraceFormat formatOf(final Path path)
    {
        return TraceFormats.resolve(path, format);
    }

    /** Reads the whole trace, with a line on {@code err} before and after. */
    public KeyTrace read(final Path path, final PrintStream err)
    {
        return read(path, err, false);
    }

    /**
     * Reads the whole trace, with a line on {@code err} before and after and, if {@code terminal},
     * a {@link Progress} line in between.
     */
    public KeyTrace read(final Path path, final PrintStream err, final boolean terminal)
    {
        final TraceFormat traceFormat = formatOf(path);
        err.printf(Locale.ROOT, "Reading %s (%s)...%n", path, traceFormat.name());
        final long start = System.nanoTime();
        final KeyTrace trace = new KeyTrace();
        // The drawing thread reads the count while the reader grows it: a stale value only delays the display.
        try (Progress progress = Progress.start(err, terminal, "Reading " + path.getFileName(),
            terminal ? expectedReferences(traceFormat, path) : -1, () -> trace.size()))
        {
            TraceFormats.read(traceFormat, path, options, trace);
        }
        err.printf(Locale.ROOT, "Read %,d references from %s in %.3f s%n",
            trace.size(), path.getFileName(), (System.nanoTime() - start) / 1e9);
        trace.notes().forEach(err::println); // a partial trace, skipped excerpts
        return trace;
    }

    /**
     * How many references reading will give, if known: a complete faultline trace's header
     * counts them, unless a process or thread filter keeps only some; else -1.
     */
    private long expectedReferences(final TraceFormat traceFormat, final Path path)
    {
        if (!traceFormat.name().equals(TraceFormats.FAULTLINE) || options.pid().isPresent() || options.tid().isPresent())
        {
            return -1;
        }
        try
        {
            final TraceHeader header = TraceHeader.read(path.resolve(TraceLayout.HEADER_FILE));
            return header.isComplete() ? header.longValue(TraceHeader.REFERENCES) : -1;
        }
        catch (final IOException | RuntimeException ex)
        {
            // The reader reports an unreadable header; progress just goes without a total.
            return -1;
        }
    }
}
