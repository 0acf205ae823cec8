package io.faultline.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * The public traces under {@code shared/traces}, found by walking up from the working
 * directory until a directory has a {@code shared/traces} child (the module directory is two
 * levels below the project root, whose sibling is {@code shared}).
 */
public final class ReferenceTraces
{
    private static volatile long[] cloudPhysics;

    private ReferenceTraces()
    {
    }

    public static Path directory()
    {
        final Path start = Paths.get("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent())
        {
            final Path traces = dir.resolve("shared").resolve("traces");
            if (Files.isDirectory(traces))
            {
                return traces;
            }
        }
        throw new IllegalStateException("no shared/traces directory above " + start +
            "; the reference traces live in ../shared/traces relative to the project root");
    }

    /** libCacheSim's cloudPhysicsIO.txt: 113,872 object ids, one per line. */
    public static long[] cloudPhysicsIO()
    {
        long[] trace = cloudPhysics;
        if (trace == null)
        {
            final Path file = directory().resolve("cloudPhysicsIO.txt");
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
