package io.faultline.format;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Rewrites a trace of format 1 to 3 (an excerpt per chunk or event, FORMAT.md "Version 3") as
 * format 4 (blocks): every excerpt goes to a {@link TraceWriter} as the recorder's logger handed
 * it the ring's messages, so the new trace holds the same references and events, with the same
 * seq, times, threads, addresses, flags, stacks and texts, and reads the same in every tool. The
 * header is kept, with {@code format_version=4} and {@code upgraded_from}; a complete trace stays
 * complete, a partial one partial.
 */
public final class TraceUpgrade
{
    /** Header key: the format version a trace was upgraded from. */
    public static final String UPGRADED_FROM = "upgraded_from";

    /**
     * What one upgrade wrote.
     *
     * @param skipped corrupt excerpts left out (--skip-corrupt)
     */
    public record Result(long version, long references, long events, long skipped)
    {
    }

    private TraceUpgrade()
    {
    }

    /**
     * Writes the trace {@code reader} reads into {@code out} (a new or empty directory) in format 4.
     * A trace whose corrupt excerpts the reader skips (it was opened with skipCorrupt) becomes
     * {@code state=incomplete}, its {@code stop_cause} saying how many were left out.
     *
     * @throws TraceFormatException if the trace is already format 4, is being recorded, or is
     *     damaged (and the reader does not skip what is damaged)
     */
    public static Result upgrade(final TraceReader reader, final Path out) throws IOException
    {
        return upgrade(reader, out, TraceWriter.BLOCK_ITEMS);
    }

    /** As {@link #upgrade(TraceReader, Path)}, with blocks of at most {@code blockItems} items (tests). */
    static Result upgrade(final TraceReader reader, final Path out, final int blockItems) throws IOException
    {
        final TraceHeader old = reader.header();
        final long version = old.longValue(TraceHeader.FORMAT_VERSION);
        if (version >= 4)
        {
            throw new TraceFormatException(reader.dir() + " is format " + version + " already; there is nothing to "
                + "upgrade", InputProblem.MISUSED);
        }
        if (reader.isLive())
        {
            throw new TraceFormatException(reader.dir() + " is still being recorded; upgrade it once its recording ended",
                InputProblem.MISUSED);
        }
        reader.scan(); // every problem, before anything is written
        final TraceHeader header = TraceHeader.create();
        old.values().forEach(header::put);
        header.put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION).put(UPGRADED_FROM, version);
        final long[] counts = new long[2];
        final ReadSummary summary;
        try (TraceWriter writer = TraceWriter.create(out, header, TraceWriter.shape(header).withBlockItems(blockItems)))
        {
            summary = reader.forEachExcerpt((kind, excerpt, length) ->
            {
                writer.write(kind, excerpt, TraceLayout.EXCERPT_KIND_SIZE, length - TraceLayout.EXCERPT_KIND_SIZE);
                if (kind == TraceLayout.EXCERPT_EVENT)
                {
                    counts[1]++;
                }
            });
            counts[0] = summary.references();
            if (summary.skipped() > 0 && old.isComplete())
            {
                header.put(TraceHeader.STATE, TraceLayout.STATE_INCOMPLETE)
                    .put(TraceHeader.STOP_CAUSE, String.format(Locale.ROOT, "upgraded from a damaged format-%d trace: "
                        + "%,d corrupt excerpt%s left out", version, summary.skipped(), summary.skipped() == 1 ? "" : "s"))
                    .put(TraceHeader.STOPPED_NS, old.get(TraceHeader.DURATION_NS) == null ? "0"
                        : old.get(TraceHeader.DURATION_NS));
                writer.finishIncomplete(header);
            }
            else if (old.isComplete())
            {
                writer.finish(header);
            }
            else if (TraceLayout.STATE_INCOMPLETE.equals(old.get(TraceHeader.STATE)))
            {
                writer.finishIncomplete(header);
            }
            // else state=recording: a recorder that died; the new trace stays as partial
        }
        return new Result(version, counts[0], counts[1], summary.skipped());
    }
}
