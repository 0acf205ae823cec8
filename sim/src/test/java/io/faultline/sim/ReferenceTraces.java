package io.faultline.sim;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The public reference traces the replay tests read, kept in the repository under
 * {@code sim/src/test/resources/traces} (where each comes from and its license: the README
 * there) and found on the test class path, so that a fresh clone needs nothing beside it.
 */
public final class ReferenceTraces
{
    private static volatile long[] cloudPhysics;
    private static final Map<String, Path> COPIED = new ConcurrentHashMap<>();

    private ReferenceTraces()
    {
    }

    /**
     * The file of a bundled trace, by name ({@code cloudPhysicsIO.txt}, {@code address-gzip.trace.gz}).
     * Under sim/ it is the file in target/test-classes; another module's tests (tools' command tests)
     * find it inside sim's test jar, and commands take paths, so it is copied out once per JVM.
     */
    public static Path file(final String name)
    {
        final URL url = ReferenceTraces.class.getResource("/traces/" + name);
        if (url == null)
        {
            throw new IllegalStateException("no bundled trace traces/" + name
                + " on the test class path; it belongs in sim/src/test/resources/traces");
        }
        try
        {
            if ("file".equals(url.getProtocol()))
            {
                return Path.of(url.toURI());
            }
            return COPIED.computeIfAbsent(name, key -> copyOut(url, key));
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException("bundled trace " + name + " has no file path: " + url, ex);
        }
    }

    private static Path copyOut(final URL url, final String name)
    {
        try (InputStream in = url.openStream())
        {
            final Path dir = Files.createTempDirectory("faultline-traces");
            dir.toFile().deleteOnExit(); // after the file: deleteOnExit runs in reverse order
            final Path file = dir.resolve(name);
            file.toFile().deleteOnExit();
            Files.copy(in, file);
            return file;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot copy the bundled trace " + name + " out of " + url, ex);
        }
    }

    /** libCacheSim's cloudPhysicsIO.txt. */
    public static Path cloudPhysicsIOFile()
    {
        return file("cloudPhysicsIO.txt");
    }

    /** The UCSD gzip address trace. */
    public static Path addressGzipFile()
    {
        return file("address-gzip.trace.gz");
    }

    /**
     * One of the LIRS project's block traces (Jiang and Zhang, SIGMETRICS 2002) by its name there:
     * {@code cpp}, {@code multi1}, {@code multi2}, {@code sprite}, {@code 2_pools}, {@code gli}.
     * Read with the {@code lirs} reader, as {@code faultline simulate --format lirs} would.
     */
    public static long[] lirs(final String name)
    {
        final Path file = file("lirs-" + name + ".trace.gz");
        return io.faultline.sim.trace.TraceFormats.read(io.faultline.sim.trace.TraceFormats.get("lirs"), file,
            io.faultline.sim.trace.TraceOptions.defaults()).toArray();
    }

    /** libCacheSim's cloudPhysicsIO.txt: 113,872 object ids, one per line. */
    public static long[] cloudPhysicsIO()
    {
        long[] trace = cloudPhysics;
        if (trace == null)
        {
            final Path file = cloudPhysicsIOFile();
            try
            {
                final List<String> lines = Files.readAllLines(file);
                trace = lines.stream().map(String::trim).filter((line) -> !line.isEmpty())
                    .mapToLong(Long::parseLong).toArray();
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("cannot read " + file, ex);
            }
            cloudPhysics = trace;
        }
        return trace;
    }
}
