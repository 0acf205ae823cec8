package io.faultline.sim.trace;

import java.io.IOException;
import java.io.OutputStream;

import io.faultline.format.TraceEvent;

/**
 * A format {@code faultline export} writes a faultline trace's references in, for another tool.
 * One small class per format, next to the reader of the same format, which reads the export
 * back to the same keys (pages).
 */
public interface ExportFormat
{
    /** The word given to {@code export --to}. */
    String name();

    /** One line: what the format is and what a reference becomes. */
    String summary();

    /**
     * Starts writing to {@code out}; the caller closes {@code out} after {@link Writer#finish()}.
     *
     * @param pageSize bytes per page: a reference's key is its address / pageSize
     */
    Writer open(OutputStream out, int pageSize) throws IOException;

    /** One export in progress: references and eviction records in trace order. */
    interface Writer
    {
        void reference(long seq, long timeNs, int pid, int tid, long address, boolean write) throws IOException;

        /**
         * An eviction record (trace-format/FORMAT.md, "EVMS"): the page at {@code address} left the
         * EVMS with {@code tag} r, w, R or W; {@code tid} brought it in. Formats of references ignore it.
         */
        default void eviction(long seq, long timeNs, int pid, int tid, long address, char tag) throws IOException
        {
        }

        /**
         * Any other event, in trace order among the references (kernel events, forks:
         * trace-format/FORMAT.md). Formats of references ignore them.
         */
        default void event(TraceEvent event) throws IOException
        {
        }

        /** Writes what is still held back (lcs-oracle writes everything here) and flushes. */
        void finish() throws IOException;
    }
}
