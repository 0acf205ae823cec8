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
 */
public record TraceOptions(OptionalInt pageSize, OptionalInt pid, OptionalInt tid, boolean instructionFetches)
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
        return new TraceOptions(OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), true);
    }

    public TraceOptions withPageSize(final int bytes)
    {
        return new TraceOptions(OptionalInt.of(bytes), pid, tid, instructionFetches);
    }

    public TraceOptions withPid(final int value)
    {
        return new TraceOptions(pageSize, OptionalInt.of(value), tid, instructionFetches);
    }

    public TraceOptions withTid(final int value)
    {
        return new TraceOptions(pageSize, pid, OptionalInt.of(value), instructionFetches);
    }

    public TraceOptions withoutInstructionFetches()
    {
        return new TraceOptions(pageSize, pid, tid, false);
    }

    /** The page size for formats that carry none of their own. */
    public int pageSizeOrDefault()
    {
        return pageSize.orElse(DEFAULT_PAGE_SIZE);
    }
}
