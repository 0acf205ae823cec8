package io.faultline.sim.trace;

import java.io.IOException;
import java.nio.file.Path;

/** One way of turning a trace file (or directory) into a sequence of keys. */
public interface TraceFormat
{
    /** The word given to {@code --format}. */
    String name();

    /** One line: what the format is and what a key is. */
    String summary();

    /**
     * Appends the keys of the trace at {@code path} to {@code out}, in reference order.
     *
     * @throws TraceException if the trace is malformed
     */
    void read(Path path, TraceOptions options, KeyTrace out) throws IOException;
}
