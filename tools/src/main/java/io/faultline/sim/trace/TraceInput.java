package io.faultline.sim.trace;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The trace options shared by the replay commands ({@code --format}, {@code --page-size},
 * {@code --pid}, {@code --tid}, {@code --no-ifetch}, {@code --skip-corrupt}) and the reading of a trace with them,
 * reporting progress on stderr.
 */
public final class TraceInput
{
    public static final String USAGE = String.join(System.lineSeparator(),
        "  --format F        trace format; a directory is read as faultline, any other file needs this:",
        "%s",
        "                    gzip, xz and zstd files are decompressed whatever their name",
        "  --page-size B     bytes per page for address traces (default 4096; a faultline trace's own)",
        "  --pid N, --tid N  faultline traces: keep one process's / one thread's references",
        "  --skip-corrupt    faultline traces: read past corrupt excerpts, counting them",
        "  --no-ifetch       lackey traces: leave out instruction fetches (I lines)");

    private Optional<String> format = Optional.empty();
    private TraceOptions options = TraceOptions.defaults();

    /** {@link #USAGE} with one line per known format. */
    public static String usage()
    {
        final StringBuilder formats = new StringBuilder();
        for (final TraceFormat format : TraceFormats.all())
        {
            if (formats.length() > 0)
            {
                formats.append(System.lineSeparator());
            }
            formats.append(String.format(Locale.ROOT, "                      %-11s %s", format.name(), format.summary()));
        }
        return String.format(Locale.ROOT, USAGE, formats);
    }

    /**
     * Applies {@code name} if it is a trace option.
     *
     * @param value supplies the option's value; called only for options that take one
     * @return false if {@code name} is not a trace option
     * @throws IllegalArgumentException for a bad value
     */
    public boolean option(final String name, final Supplier<String> value)
    {
        switch (name)
        {
            case "--format" ->
            {
                final String word = value.get();
                TraceFormats.get(word);
                format = Optional.of(word);
            }
            case "--page-size" -> options = options.withPageSize(positiveInt(name, value.get()));
            case "--pid" -> options = options.withPid(nonNegativeInt(name, value.get()));
            case "--tid" -> options = options.withTid(nonNegativeInt(name, value.get()));
            case "--no-ifetch" -> options = options.withoutInstructionFetches();
            case "--skip-corrupt" -> options = options.skippingCorrupt();
            default ->
            {
                return false;
            }
        }
        return true;
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
        trace.notes().forEach(progress::println);
        return trace;
    }

    static int positiveInt(final String name, final String text)
    {
        final int value = nonNegativeInt(name, text);
        if (value == 0)
        {
            throw new IllegalArgumentException(name + " must be positive: " + name + " " + text);
        }
        return value;
    }

    static int nonNegativeInt(final String name, final String text)
    {
        try
        {
            final int value = Integer.parseInt(text);
            if (value >= 0)
            {
                return value;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // Reported below with the option's name.
        }
        throw new IllegalArgumentException(name + " takes a whole number, not '" + text + "'");
    }
}
