package io.faultline.format;

/** Receives references and events in trace order. */
public interface TraceVisitor extends ReferenceVisitor
{
    default void onEvent(final TraceEvent event)
    {
    }
}
