package io.faultline.sim.trace;

import io.faultline.format.EventType;
import io.faultline.format.ReadSummary;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;

import java.nio.file.Path;

/**
 * A faultline trace directory. Key = the process and the page of the address ({@link PageKey}) at
 * the trace's own page size (from its header), or at {@code --page-size} if given, which replays a trace taken at 4 KiB
 * as if memory were managed in larger pages. {@code --pid} and {@code --tid} keep one process's
 * or one thread's references; every reference is tagged with its thread for per-thread curves.
 * With {@link TraceOptions#evictionOrder()} the keys are the eviction records' pages, in the
 * order the agent emitted them (kVMTrace's reduced trace). The header's EVMS configuration goes
 * to {@link KeyTrace#evms}. References come in global seq order across processes; a partial trace is read to its last
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
        return "faultline trace directory (the default for a directory); key = process and address / page size";
    }

    /** The header's EVMS configuration; traces older than the policies have fifo with no lead key. */
    private static void evms(final TraceHeader header, final KeyTrace out)
    {
        final String pages = header.get(TraceHeader.EVMS_PAGES);
        if (pages == null)
        {
            return;
        }
        final String policy = header.get(TraceHeader.POLICY) == null ? "fifo" : header.get(TraceHeader.POLICY);
        final StringBuilder words = new StringBuilder(policy).append(", ").append(pages).append(" pages");
        if (policy.equals("segq"))
        {
            words.append(", lead ").append(header.get(TraceHeader.LEAD_PAGES)).append(", trail ")
                .append(header.get(TraceHeader.TRAIL));
        }
        out.evms((int)header.longValue(TraceHeader.EVMS_PAGES), words.toString());
    }

    @Override
    public void read(final Path path, final TraceOptions options, final KeyTrace out)
    {
        try (TraceReader reader = TraceReader.open(path, options.skipCorrupt()))
        {
            reader.requireReferences("simulate or mrc");
            final int pageSize = options.pageSize().orElse(reader.header().pageSize());
            out.pageSize(pageSize);
            final boolean anyPid = options.pid().isEmpty();
            final boolean anyTid = options.tid().isEmpty();
            final int pid = options.pid().orElse(0);
            final int tid = options.tid().orElse(0);
            evms(reader.header(), out);
            final ReadSummary summary;
            if (options.evictionOrder())
            {
                summary = reader.forEach(new TraceVisitor()
                {
                    @Override
                    public void onReference(final long seq, final long timeNs, final int refPid, final int refTid,
                        final long address, final boolean write)
                    {
                    }

                    @Override
                    public void onEvent(final TraceEvent event)
                    {
                        if (event.type() == EventType.EVICT && (anyPid || event.pid() == pid) && (anyTid || event.tid() == tid))
                        {
                            out.add(PageKey.of(event.pid(), event.a(), pageSize), event.tid());
                        }
                    }
                });
            }
            else
            {
                if (anyPid && anyTid && reader.header().isComplete())
                {
                    out.reserve(reader.header().longValue(TraceHeader.REFERENCES), true);
                }
                // a page size that is a power of two (every one Linux has) is a shift, not a division
                final int shift = Integer.bitCount(pageSize) == 1 ? Integer.numberOfTrailingZeros(pageSize) : -1;
                if (shift >= 0 && anyTid)
                {
                    // a run of one process's references at a time, keyed in one loop
                    summary = reader.forEachReferenceRun((refPid, tids, addresses, from, to) ->
                    {
                        if (anyPid || refPid == pid)
                        {
                            out.addRun(refPid, tids, addresses, from, to, shift);
                        }
                    });
                }
                else
                {
                    summary = reader.forEachReference((seq, timeNs, refPid, refTid, address, write) ->
                    {
                        if ((anyPid || refPid == pid) && (anyTid || refTid == tid))
                        {
                            out.add(shift >= 0 ? PageKey.ofShift(refPid, address, shift)
                                : PageKey.of(refPid, address, pageSize), refTid);
                        }
                    });
                }
            }
            summary.notes(path).forEach(out::note);
        }
        catch (final TraceFormatException ex)
        {
            throw new TraceException(ex.getMessage(), ex.problem(), ex);
        }
    }
}
