package io.faultline.sweep.traces;

import io.faultline.sim.report.Written;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.format.InputProblem;
import io.faultline.sim.trace.TraceException;
import io.faultline.sim.trace.TraceInput;
import io.faultline.tools.CliException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The driver's side of getting traces to executors. A trace argument is either a staged trace
 * already (a {@link KeysFile}, local or at any URI Hadoop reads, where tasks read it as it is),
 * or a trace of any format simulate reads on this machine (a faultline trace directory, a
 * libCacheSim file, ...): read here once with tools' readers, written as a keys file to the
 * stage directory, and read from there by the tasks.
 */
public final class Staging
{
    private final TraceInput input;
    private final Path stageDir;
    private final Configuration hadoop;
    private final PrintStream err;
    private final boolean terminal;
    private final java.util.Set<String> written = new java.util.HashSet<>();

    /**
     * @param stageDir where to write staged traces: a directory URI every executor reads
     */
    public Staging(final TraceInput input, final String stageDir, final Configuration hadoop, final PrintStream err,
        final boolean terminal)
    {
        this.input = input;
        this.stageDir = new Path(stageDir);
        this.hadoop = hadoop;
        this.err = err;
        this.terminal = terminal;
    }

    /** Whether {@code argument} names a file system by scheme ({@code file:}, {@code hdfs://}, ...). */
    public static boolean isUri(final String argument)
    {
        final int colon = argument.indexOf(':');
        return colon > 1 && argument.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*");
    }

    /**
     * The trace {@code argument} as tasks will read it: at its URI if it is a keys file already,
     * else staged; {@code evmsWarning} receives the trace's EVMS warning at the given sizes.
     *
     * @throws TraceException naming the trace if it cannot be read or written
     */
    public StagedTrace stage(final String argument, final SizesOf sizes, final Consumer<String> warnings)
    {
        try
        {
            return stageOrThrow(argument, sizes, warnings);
        }
        catch (final IOException ex)
        {
            // Hadoop's messages name the problem ("No FileSystem for scheme") but not always the trace.
            final String message = ex.getMessage() == null ? ex.getClass().getSimpleName()
                : ex.getMessage().lines().findFirst().orElse("");
            throw new TraceException(message.contains(argument) ? message : argument + ": " + message,
                InputProblem.UNREADABLE, ex);
        }
    }

    private StagedTrace stageOrThrow(final String argument, final SizesOf sizes, final Consumer<String> warnings)
        throws IOException
    {
        final Path given = isUri(argument) ? new Path(argument) : new Path(java.nio.file.Path.of(argument)
            .toAbsolutePath().toUri());
        final FileSystem fs = given.getFileSystem(hadoop);
        if (!fs.exists(given))
        {
            throw new TraceException("no such trace: " + argument, InputProblem.UNREADABLE);
        }
        if (fs.getFileStatus(given).isFile())
        {
            final byte[] head = new byte[KeysFile.MAGIC.length];
            final int n;
            try (InputStream in = fs.open(given))
            {
                n = in.readNBytes(head, 0, head.length);
            }
            if (KeysFile.isKeysFile(head, n))
            {
                try (DataInputStream in = new DataInputStream(fs.open(given)))
                {
                    final KeysFile.Header header = KeysFile.readHeader(in, argument);
                    return new StagedTrace(header.name(), fs.makeQualified(given).toString(), false,
                        header.references(), header.pageSize());
                }
            }
        }
        if (isUri(argument) && !"file".equals(given.toUri().getScheme()))
        {
            throw new TraceException(argument + " is not a staged trace; tasks read only staged traces from "
                + given.toUri().getScheme() + ": stage it first with faultline sweep --stage DIR --stage-only",
                InputProblem.MISUSED);
        }
        final java.nio.file.Path local = isUri(argument) ? java.nio.file.Path.of(URI.create(argument))
            : java.nio.file.Path.of(argument);
        final KeyTrace trace;
        try
        {
            trace = input.read(local, err, terminal);
        }
        catch (final ExceptionInInitializerError | NoClassDefFoundError ex)
        {
            // Chronicle Queue fails so on Java 17 without its flags: a driver that spark-submit
            // started, not the faultline launcher.
            throw new CliException("cannot read " + argument + ": Chronicle Queue needs the JVM flags of "
                + "docs/ARCHITECTURE.md (Java 17 flags); with spark-submit give them with --driver-java-options, or "
                + "stage the trace first with faultline sweep --stage DIR --stage-only");
        }
        warnings.accept(trace.evmsWarning(sizes.of(trace.pageSize())).orElse(null));
        final String name = local.getFileName() == null ? local.toString() : local.getFileName().toString();
        // A number first: two traces of one name from two directories stay apart.
        final Path target = new Path(stageDir, String.format(Locale.ROOT, "%02d-%s%s", written.size(), name,
            KeysFile.EXTENSION));
        final long start = System.nanoTime();
        final long[] keys = trace.toArray();
        try (FSDataOutputStream raw = target.getFileSystem(hadoop).create(target, true);
             OutputStream out = new BufferedOutputStream(raw, 1 << 20))
        {
            KeysFile.write(new KeysFile.Header(name, trace.pageSize(), keys.length, trace.evmsPages()), keys, out);
        }
        final FileSystem targetFs = target.getFileSystem(hadoop);
        final long bytes = targetFs.getFileStatus(target).getLen();
        err.printf(Locale.ROOT, "Staged %s: %,d references in %,d bytes (%.2f per reference) at %s in %s%n", name,
            keys.length, bytes, (double)bytes / Math.max(1, keys.length), target, Written.seconds(System.nanoTime()
                - start));
        final StagedTrace result = new StagedTrace(name, targetFs.makeQualified(target).toString(), false,
            keys.length, trace.pageSize());
        written.add(result.location());
        return result;
    }

    /** Whether {@code trace} was written here, rather than given staged. */
    public boolean wrote(final StagedTrace trace)
    {
        return written.contains(trace.location());
    }

    /** The cache sizes in pages at a page size: the grid's sizes, some in bytes. */
    @FunctionalInterface
    public interface SizesOf
    {
        int[] of(int pageSize);
    }

    /** A new local directory for staged traces, for when the user gave none. */
    public static java.nio.file.Path temporaryDirectory() throws IOException
    {
        return Files.createTempDirectory("faultline-sweep-");
    }
}
