package io.faultline.format;

/**
 * Layout of a trace directory (see trace-format/FORMAT.md):
 *
 * <pre>
 *   DIR/header.properties   key=value header: state, format version, configuration, totals
 *   DIR/queue/              Chronicle Queue; every excerpt is raw bytes:
 *                             0  u32 kind   EXCERPT_CHUNK or EXCERPT_EVENT
 *                             4  payload    the chunk or event exactly as the agent wrote it
 * </pre>
 */
public final class TraceLayout
{
    /** Version 2 added Moca chunks and the mode and interval_ns header keys; version 1 traces read as before. */
    public static final int FORMAT_VERSION = 3;
    /** The oldest version this reader reads. */
    public static final int MIN_FORMAT_VERSION = 1;
    public static final String HEADER_FILE = "header.properties";
    public static final String QUEUE_DIR = "queue";

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
