package io.faultline.sim.trace;

import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceReader;

import java.nio.file.Path;

/**
 * A faultline trace directory. Key = the page of the address at the trace's own page size
 * (from its header), or at {@code --page-size} if given, which replays a trace taken at 4 KiB
 * as if memory were managed in larger pages. {@code --pid} and {@code --tid} keep one process's
 * or one thread's references; every reference is tagged with its thread for per-thread curves.
 * References come in global seq order across processes; a partial trace is read to its last
 * complete excerpt, and {@code --skip-corrupt} reads past corrupt excerpts (both noted).
 */
final class FaultlineTraceFormat implements TraceFormat
{
    @Override
    public String name()
    {
        return TraceFormats.FAULTLINE;
    }

    @Override
    public String summary()
    {
        return "faultline trace directory (the default for a directory); key = address / page size";
    }

    @Override
    public void read(final Path path, final TraceOptions options, final KeyTrace out)
    {
        try (TraceReader reader = TraceReader.open(path, options.skipCorrupt()))
        {
            final int pageSize = options.pageSize().orElse(reader.header().pageSize());
            out.pageSize(pageSize);
            final boolean anyPid = options.pid().isEmpty();
            final boolean anyTid = options.tid().isEmpty();
            final int pid = options.pid().orElse(0);
            final int tid = options.tid().orElse(0);
            reader.forEachReference((seq, timeNs, refPid, refTid, address, write) ->
            {
                if ((anyPid || refPid == pid) && (anyTid || refTid == tid))
                {
                    out.add(Long.divideUnsigned(address, pageSize), refTid);
                }
            }).notes(path).forEach(out::note);
        }
        catch (final TraceFormatException ex)
        {
            throw new TraceException(ex.getMessage(), ex);
        }
    }
}
