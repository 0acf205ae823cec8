package io.faultline.sim.trace;

import io.faultline.sim.ReferenceTraces;

import java.nio.file.Path;

/** The bundled reference traces ({@link ReferenceTraces}) read through the trace formats. */
public final class SharedTraces
{
    private SharedTraces()
    {
    }

    public static Path cloudPhysicsIO()
    {
        return ReferenceTraces.cloudPhysicsIOFile();
    }

    public static Path addressGzip()
    {
        return ReferenceTraces.addressGzipFile();
    }

    public static long[] read(final String format, final Path path) throws java.io.IOException
    {
        return TraceFormats.read(TraceFormats.get(format), path, TraceOptions.defaults()).toArray();
    }
}
