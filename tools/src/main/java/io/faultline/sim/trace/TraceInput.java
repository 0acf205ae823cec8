package io.faultline.sim.trace;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Which format and options to read a trace with (the replay commands' {@code --format},
 * {@code --page-size}, {@code --pid}, {@code --tid}, {@code --no-ifetch}), and the reading of a
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

    /** Reads the whole trace, with a line on {@code progress} before and after. */
    public KeyTrace read(final Path path, final PrintStream progress)
    {
        final TraceFormat traceFormat = formatOf(path);
        progress.printf(Locale.ROOT, "Reading %s (%s)...%n", path, traceFormat.name());
        final long start = System.nanoTime();
        final KeyTrace trace = TraceFormats.read(traceFormat, path, options);
        progress.printf(Locale.ROOT, "Read %,d references from %s in %.3f s%n",
            trace.size(), path.getFileName(), (System.nanoTime() - start) / 1e9);
        return trace;
    }
}
