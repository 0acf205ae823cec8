package io.faultline.tracer;

import org.agrona.DirectBuffer;

/**
 * Sees every excerpt the {@link Logger} writes, as it writes it (or would write it, when the
 * recording keeps no trace): what {@code record --live} replays while the program runs. Called
 * on the logger's drain thread, between two ring reads, so it must only copy what it needs and
 * return: a tee that waits makes the agents' rings fill and the program wait for room. It must
 * not throw.
 */
@FunctionalInterface
public interface ExcerptTee
{
    /**
     * @param kind   {@code TraceLayout.EXCERPT_CHUNK} or {@code EXCERPT_EVENT}
     * @param buffer the excerpt's payload (FORMAT.md, "Excerpts"), valid only during the call
     */
    void onExcerpt(int kind, DirectBuffer buffer, int offset, int length);
}
