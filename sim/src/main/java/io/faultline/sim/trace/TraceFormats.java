package io.faultline.sim.trace;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.faultline.format.InputProblem;

/**
 * The registry of trace formats by name. A directory is a faultline trace; any other file
 * needs its format named, since a line of numbers could be a block, an object id or a page and
 * guessing wrong would give a plausible but wrong curve.
 */
public final class TraceFormats
{
    public static final String FAULTLINE = "faultline";

    private static final Map<String, TraceFormat> FORMATS = new LinkedHashMap<>();

    static
    {
        for (final TraceFormat format : new TraceFormat[] {
            new FaultlineTraceFormat(),
            new LirsTraceFormat(),
            new LibCacheSimTextFormat(),
            new LibCacheSimOracleFormat(),
            new LibCacheSimLcsFormat(),
            new AddressTraceFormat(),
            new LackeyTraceFormat(),
            new FaultlineCsvTraceFormat(),
            new KvmTraceFormat()})
        {
            FORMATS.put(format.name(), format);
        }
    }

    private TraceFormats()
    {
    }

    public static Collection<TraceFormat> all()
    {
        return FORMATS.values();
    }

    public static String names()
    {
        return String.join(", ", FORMATS.keySet());
    }

    /** @throws TraceException naming the known formats if {@code name} is not one */
    public static TraceFormat get(final String name)
    {
        final TraceFormat format = FORMATS.get(name);
        if (format == null)
        {
            throw new TraceException("unknown trace format '" + name + "'; known formats: " + names(),
                InputProblem.MISUSED);
        }
        return format;
    }

    /**
     * The format to read {@code path} with: {@code requested} if given, faultline for a
     * directory or a packed trace, else an error asking for {@code --format}.
     */
    public static TraceFormat resolve(final Path path, final Optional<String> requested)
    {
        if (!Files.exists(path))
        {
            throw new TraceException("no such trace: " + path, InputProblem.UNREADABLE);
        }
        if (requested.isPresent())
        {
            return get(requested.get());
        }
        if (Files.isDirectory(path) || io.faultline.format.TracePack.isPack(path))
        {
            return get(FAULTLINE);
        }
        throw new TraceException("cannot tell the format of " + path + "; give --format, one of: " + names(),
            InputProblem.MISUSED);
    }

    /**
     * Reads the whole trace.
     *
     * @throws TraceException if it is unreadable, malformed or holds no reference
     */
    public static KeyTrace read(final TraceFormat format, final Path path, final TraceOptions options)
    {
        return read(format, path, options, new KeyTrace());
    }

    /** {@link #read(TraceFormat, Path, TraceOptions)} into {@code trace}, which must be empty. */
    public static KeyTrace read(final TraceFormat format, final Path path, final TraceOptions options,
        final KeyTrace trace)
    {
        trace.pageSize(options.pageSizeOrDefault());
        try
        {
            format.read(path, options, trace);
        }
        catch (final IOException ex)
        {
            // The OS refused the file (permission, a directory where a file belongs), or its
            // compressed data is corrupt: one line either way, naming which.
            if (ex instanceof FileSystemException)
            {
                throw new TraceException("cannot read " + InputProblem.describe(ex, path), InputProblem.UNREADABLE, ex);
            }
            throw new TraceException("cannot read " + path + " as " + format.name() + ": corrupt data ("
                + InputProblem.reason(ex) + ")", InputProblem.CORRUPT, ex);
        }
        if (trace.isEmpty())
        {
            throw new TraceException(path + ": the trace holds no reference (format " + format.name() + ")");
        }
        return trace;
    }
}
