package io.faultline.format;

/** Receives trapped references in trace order. */
@FunctionalInterface
public interface ReferenceVisitor
{
    void onReference(long seq, long timeNs, int pid, int tid, long address, boolean write);

    /**
     * The same, with whether the kernel made the reference in a system call for the thread (the
     * system-call gate's records, FORMAT.md "Kernel references"); readers call this one, and by
     * default it is the reference without that flag.
     */
    default void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
        final boolean write, final boolean kernel)
    {
        onReference(seq, timeNs, pid, tid, address, write);
    }

    /**
     * The same, with the reference's call stack (record --stacks): the id of a {@link EventType#STACK}
     * event of the process image, 0 for none; readers call this one, and by default it is the
     * reference without the stack.
     */
    default void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
        final boolean write, final boolean kernel, final int stack)
    {
        onReference(seq, timeNs, pid, tid, address, write, kernel);
    }
}
