package io.faultline.sim.trace;

import java.util.OptionalInt;

/**
 * How to turn a trace's references into keys.
 *
 * @param pageSize          bytes per page for address traces; empty means the format's own:
 *                          the faultline trace header, else {@link #DEFAULT_PAGE_SIZE}
 * @param pid               keep only this process's references (faultline traces)
 * @param tid               keep only this thread's references (faultline traces)
 * @param instructionFetches count lackey's {@code I} lines (instruction fetches) as references
 * @param skipCorrupt       faultline traces: read past corrupt excerpts, counting them
 * @param evictionOrder     faultline traces: the eviction records' pages in the order they were
 *                          emitted (kVMTrace's reduced trace) instead of the reference records'
 */
public record TraceOptions(OptionalInt pageSize, OptionalInt pid, OptionalInt tid, boolean instructionFetches,
    boolean skipCorrupt, boolean evictionOrder)
{
    public static final int DEFAULT_PAGE_SIZE = 4096;

    public TraceOptions
    {
        if (pageSize.isPresent() && pageSize.getAsInt() <= 0)
        {
            throw new IllegalArgumentException("page size must be positive: pageSize=" + pageSize.getAsInt());
        }
    }

    public static TraceOptions defaults()
    {
        return new TraceOptions(OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), true, false, false);
    }

    public TraceOptions withPageSize(final int bytes)
    {
        return new TraceOptions(OptionalInt.of(bytes), pid, tid, instructionFetches, skipCorrupt, evictionOrder);
    }

    public TraceOptions withPid(final int value)
    {
        return new TraceOptions(pageSize, OptionalInt.of(value), tid, instructionFetches, skipCorrupt, evictionOrder);
    }

    public TraceOptions withTid(final int value)
    {
        return new TraceOptions(pageSize, pid, OptionalInt.of(value), instructionFetches, skipCorrupt, evictionOrder);
    }

    public TraceOptions withoutInstructionFetches()
    {
        return new TraceOptions(pageSize, pid, tid, false, skipCorrupt, evictionOrder);
    }

    public TraceOptions skippingCorrupt()
    {
        return new TraceOptions(pageSize, pid, tid, instructionFetches, true, evictionOrder);
    }

    public TraceOptions inEvictionOrder()
    {
        return new TraceOptions(pageSize, pid, tid, instructionFetches, skipCorrupt, true);
    }

    /** The page size for formats that carry none of their own. */
    public int pageSizeOrDefault()
    {
        return pageSize.orElse(DEFAULT_PAGE_SIZE);
    }
}
