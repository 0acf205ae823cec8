package io.faultline.format;

/**
 * Receives references and events in trace order; a trace recorded with {@code --mode moca}
 * delivers Moca chunks instead of references, each at its interval's end.
 */
public interface TraceVisitor extends ReferenceVisitor
{
    default void onEvent(final TraceEvent event)
    {
    }

    /**
     * An eviction record (an evict event, type 16, whose d is 0 and text empty: FORMAT.md,
     * "Blocks"), as {@link #onEvent} would receive it; a visitor that takes millions of them
     * may take them here without an event object each. {@code tag} is the event's b, {@code
     * deleted} its c.
     */
    default void onEviction(final long seq, final long timeNs, final int pid, final int tid, final long address,
        final long tag, final long deleted)
    {
        onEvent(new TraceEvent(EventType.EVICT.code(), EventType.EVICT, pid, tid, seq, timeNs, address, tag, deleted, 0,
            ""));
    }

    default void onMocaChunk(final MocaChunk chunk)
    {
    }
}
