package io.faultline.format;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one read of a trace found: how much it read, how far a partial trace goes, and what
 * {@code --skip-corrupt} left out.
 *
 * @param partial         the header says state=recording: the recorder stopped before finishing,
 *                        or is still writing it
 * @param live            partial because a recorder is still writing it ({@link TraceWriter#isBeingWritten})
 * @param excerpts        sound excerpts read
 * @param references      records in them
 * @param events          events in them
 * @param processes       processes with records or events
 * @param lastExcerpt     position in the queue (from 0) of the last sound excerpt, -1 if none
 * @param lastTimeNs      the latest time_ns of any record or event read
 * @param skipped         corrupt excerpts skipped
 * @param unreadable      why the queue could not be read to its end, or null
 */
public record ReadSummary(boolean partial, boolean live, long excerpts, long references, long events, int processes,
    long lastExcerpt, long lastTimeNs, long skipped, String unreadable)
{
    /** One line each for stderr: the trace is partial; excerpts were skipped; the rest was unreadable. */
    public List<String> notes(final Path dir)
    {
        final List<String> notes = new ArrayList<>();
        if (live)
        {
            notes.add(String.format(Locale.ROOT, "trace %s is still being recorded: read %,d references and %,d "
                + "events, up to excerpt %d at %.3f s", dir, references, events, lastExcerpt, lastTimeNs / 1e9));
        }
        else if (partial)
        {
            notes.add(String.format(Locale.ROOT, "trace %s is partial (its recorder stopped before finishing): "
                + "read %,d references and %,d events, up to excerpt %d at %.3f s", dir, references, events,
                lastExcerpt, lastTimeNs / 1e9));
        }
        if (skipped > 0)
        {
            notes.add(String.format(Locale.ROOT, "skipped %,d corrupt excerpt%s of %s (--skip-corrupt)", skipped,
                skipped == 1 ? "" : "s", dir));
        }
        if (unreadable != null)
        {
            notes.add("read " + dir + " only up to a break in its queue: " + unreadable);
        }
        return notes;
    }
}
