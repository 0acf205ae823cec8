package io.faultline.format;

/** Receives trapped references in trace order. */
@FunctionalInterface
public interface ReferenceVisitor
{
    void onReference(long seq, long timeNs, int pid, int tid, long address, boolean write);
}
