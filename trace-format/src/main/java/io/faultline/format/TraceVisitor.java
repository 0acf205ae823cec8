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

    default void onMocaChunk(final MocaChunk chunk)
    {
    }
}
