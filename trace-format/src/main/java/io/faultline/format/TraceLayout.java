package io.faultline.format;

/**
 * Layout of a trace directory (see trace-format/FORMAT.md):
 *
 * <pre>
 *   DIR/header.properties   key=value header: state, format version, configuration, totals
 *   DIR/queue/              Chronicle Queue; every excerpt is a block of one process's items
 *                           ({@link BlockDescriptor}); in versions 1 to 3 raw bytes:
 *                             0  u32 kind   EXCERPT_CHUNK or EXCERPT_EVENT
 *                             4  payload    the chunk or event exactly as the agent wrote it
 * </pre>
 */
public final class TraceLayout
{
    /**
     * Version 4: blocks, compact and checksummed. Version 3 added a record's call stack id, 2 Moca
     * chunks and the mode and interval_ns header keys; versions 1 to 3 read as before.
     */
    public static final int FORMAT_VERSION = 4;
    /** The oldest version this reader reads. */
    public static final int MIN_FORMAT_VERSION = 1;
    public static final String HEADER_FILE = "header.properties";
    public static final String QUEUE_DIR = "queue";

    /**
     * The kinds of a ring message the writer is handed (and of an excerpt of a version 1 to 3
     * trace): a chunk of references, an event.
     */
    public static final int EXCERPT_CHUNK = 1;
    public static final int EXCERPT_EVENT = 2;
    public static final int EXCERPT_KIND_SIZE = 4;

    public static final String STATE_RECORDING = "recording";
    /**
     * The recording stopped early (its logger could not write: a full file system, a removed
     * directory) while the program ran on untraced: everything before the stop is in the queue.
     */
    public static final String STATE_INCOMPLETE = "incomplete";
    public static final String STATE_COMPLETE = "complete";

    /**
     * The {@code content} header key's value in a DAMON monitoring record (monitor/, see
     * trace-format/MONITOR-FORMAT.md): the same directory layout and header machinery, other
     * excerpts. Traces have no such key.
     */
    public static final String CONTENT_MONITOR = "damon-monitor";

    private TraceLayout()
    {
    }
}
