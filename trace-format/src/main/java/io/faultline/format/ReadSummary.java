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
 * @param skipped         corrupt excerpts skipped (damaged places, in a format-4 trace)
 * @param skippedReferences references lost with them, -1 if not known (a partial trace has no total)
 * @param unreadable      why the queue could not be read to its end, or null
 * @param damage          one line for each damaged place found (file, byte, what is wrong, what
 *                        was lost), also those that lost nothing
 */
public record ReadSummary(boolean partial, boolean live, long excerpts, long references, long events, int processes,
    long lastExcerpt, long lastTimeNs, long skipped, long skippedReferences, String unreadable, List<String> damage)
{
    /** Damaged places named one by one in {@link #notes}; more are counted. */
    static final int DAMAGE_LINES = 10;

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
        for (int i = 0; i < damage.size() && i < DAMAGE_LINES; i++)
        {
            notes.add("damaged: " + damage.get(i));
        }
        if (damage.size() > DAMAGE_LINES)
        {
            notes.add(String.format(Locale.ROOT, "damaged: %,d more places", damage.size() - DAMAGE_LINES));
        }
        if (skipped > 0)
        {
            notes.add(String.format(Locale.ROOT, "skipped %,d corrupt excerpt%s of %s (--skip-corrupt): %s", skipped,
                skipped == 1 ? "" : "s", dir, skippedReferences < 0 ? "the references in them are not known (a partial "
                + "trace has no total)" : String.format(Locale.ROOT, "%,d reference%s lost", skippedReferences,
                skippedReferences == 1 ? "" : "s")));
        }
        if (unreadable != null)
        {
            notes.add("read " + dir + " only up to a break in its queue: " + unreadable);
        }
        return notes;
    }
}
