package io.faultline.sim;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The public reference traces the replay tests read, kept in the repository under
 * {@code tools/src/test/resources/traces} (where each comes from and its license: the README
 * there) and found on the test class path, so that a fresh clone needs nothing beside it.
 */
public final class ReferenceTraces
{
    private static volatile long[] cloudPhysics;

    private ReferenceTraces()
    {
    }

    /** The file of a bundled trace, by name ({@code cloudPhysicsIO.txt}, {@code address-gzip.trace.gz}). */
    public static Path file(final String name)
    {
        final URL url = ReferenceTraces.class.getResource("/traces/" + name);
        if (url == null)
        {
            throw new IllegalStateException("no bundled trace traces/" + name
                + " on the test class path; it belongs in tools/src/test/resources/traces");
        }
        try
        {
            return Path.of(url.toURI());
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException("bundled trace " + name + " has no file path: " + url, ex);
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
