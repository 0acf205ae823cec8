package io.faultline.sim.trace;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.fail;

/** The public reference traces in {@code ../shared/traces}, found by walking up from the working directory. */
public final class SharedTraces
{
    private SharedTraces()
    {
    }

    public static Path cloudPhysicsIO()
    {
        return file("cloudPhysicsIO.txt");
    }

    public static Path addressGzip()
    {
        return file("address-gzip.trace.gz");
    }

    public static Path file(final String name)
    {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent())
        {
            final Path candidate = dir.resolve("shared").resolve("traces").resolve(name);
            if (Files.isRegularFile(candidate))
            {
                return candidate;
            }
        }
        fail("reference trace shared/traces/" + name + " not found above " + Path.of("").toAbsolutePath()
            + "; these tests need the project's shared/ folder beside the repository");
        throw new AssertionError();
    }

    public static long[] read(final String format, final Path path) throws java.io.IOException
    {
        return TraceFormats.read(TraceFormats.get(format), path, TraceOptions.defaults()).toArray();
    }
}
