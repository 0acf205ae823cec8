package io.faultline.damon.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.damon.IntervalsGoal;
import io.faultline.format.InputProblem;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceReader;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;

import static io.faultline.damon.record.MonitorRecordLayout.*;

/**
 * Reads a monitoring record written by {@link MonitorRecordWriter}. Every inconsistency (not a
 * record, a trace instead, incomplete, unknown version, bad excerpt, fewer aggregations than
 * the header counts) is a {@link TraceFormatException} with one line that names it.
 */
public final class MonitorRecordReader
{
    private final Path dir;
    private final TraceHeader header;

    private MonitorRecordReader(final Path dir, final TraceHeader header)
    {
        this.dir = dir;
        this.header = header;
    }

    /** Whether {@code dir} holds a monitoring record (by its header; nothing else is checked). */
    public static boolean isRecord(final Path dir)
    {
        final Path file = dir.resolve(TraceLayout.HEADER_FILE);
        if (!Files.isRegularFile(file))
        {
            return false;
        }
        try
        {
            return TraceLayout.CONTENT_MONITOR.equals(TraceHeader.read(file).get(TraceHeader.CONTENT));
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            return false;
        }
    }

    public static MonitorRecordReader open(final Path dir)
    {
        final TraceHeader header = TraceHeader.readDirectory(dir, "monitoring record");
        if (!TraceLayout.CONTENT_MONITOR.equals(header.get(TraceHeader.CONTENT)))
        {
            throw new TraceFormatException(dir + " is a faultline trace, not a monitoring record; make one with"
                + " faultline monitor --from-trace " + dir + " -o DIR", InputProblem.MISUSED);
        }
        final long version = header.longValue(TraceHeader.FORMAT_VERSION);
        if (version < FORMAT_VERSION_MIN || version > FORMAT_VERSION)
        {
            throw new TraceFormatException("monitoring record " + dir + " has format version " + version
                + " but this faultline reads versions " + FORMAT_VERSION_MIN + " to " + FORMAT_VERSION
                + "; use a matching faultline", InputProblem.MISUSED);
        }
        if (!header.isComplete())
        {
            throw new TraceFormatException("monitoring record " + dir + " is incomplete (state="
                + header.get(TraceHeader.STATE) + "): its monitor stopped before finishing; monitor again");
        }
        return new MonitorRecordReader(dir, header);
    }

    public TraceHeader header()
    {
        return header;
    }

    public Path dir()
    {
        return dir;
    }

    /** The attributes the record was made with (with tuning: the starting intervals). */
    public Attributes attributes()
    {
        final Attributes attrs = new Attributes(header.longValue(SAMPLE_US), header.longValue(AGGR_US),
            header.longValue(UPDATE_US), (int)header.longValue(MIN_REGIONS), (int)header.longValue(MAX_REGIONS));
        final String goal = header.get(INTERVALS_GOAL);
        if (goal == null)
        {
            return attrs;
        }
        final String[] values = goal.split(":");
        try
        {
            return attrs.withIntervalsGoal(new IntervalsGoal(Long.parseLong(values[0]), Long.parseLong(values[1]),
                Long.parseLong(values[2]), Long.parseLong(values[3])));
        }
        catch (final NumberFormatException | ArrayIndexOutOfBoundsException ex)
        {
            throw new TraceFormatException("corrupt monitoring record header " + dir.resolve(TraceLayout.HEADER_FILE)
                + ": " + INTERVALS_GOAL + " is '" + goal + "', not ACCESS_BP:AGGRS:MIN_SAMPLE_US:MAX_SAMPLE_US");
        }
    }

    /** Every aggregation, in order. */
    public List<Snapshot> snapshots()
    {
        try
        {
            return readSnapshots();
        }
        catch (final InternalError ex)
        {
            // A fault in a mapped queue file cut short is delivered a little after the access, at
            // times past the catch below, after the queue closed (TraceReaderFuzzTest, 2,000 tries).
            throw new TraceFormatException("corrupt monitoring record " + dir + ": a queue file is cut short", ex);
        }
    }

    private List<Snapshot> readSnapshots()
    {
        final List<Snapshot> snapshots = new ArrayList<>();
        final long expected = header.longValue(AGGREGATIONS);
        final Path queueDir = dir.resolve(TraceLayout.QUEUE_DIR);
        if (expected == 0)
        {
            return snapshots;
        }
        if (!Files.isDirectory(queueDir))
        {
            throw new TraceFormatException("truncated monitoring record " + dir + ": the queue files are missing");
        }
        try (ChronicleQueue queue = TraceReader.openQueue(queueDir);
            ExcerptTailer tailer = queue.createTailer())
        {
            while (true)
            {
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (!dc.isPresent())
                    {
                        break;
                    }
                    snapshots.add(read(dc.wire().bytes(), snapshots.size()));
                }
            }
        }
        catch (final TraceFormatException ex)
        {
            throw ex;
        }
        catch (final Exception | InternalError ex)
        {
            // InternalError: Chronicle maps the queue files; a truncated file faults (SIGBUS) on
            // read. Exception: its framing checks throw checked exceptions unchecked (and
            // TraceReaderFuzzTest found both); neither's text says anything to a user.
            throw new TraceFormatException("corrupt monitoring record " + dir + " at excerpt " + snapshots.size()
                + ": " + (ex instanceof InternalError ? "a queue file is cut short" : "a queue file is damaged"), ex);
        }
        if (snapshots.size() != expected)
        {
            throw new TraceFormatException("truncated monitoring record " + dir + ": the header counts " + expected
                + " aggregations but the queue holds " + snapshots.size());
        }
        return snapshots;
    }

    private Snapshot read(final Bytes<?> bytes, final int excerpt)
    {
        final long length = bytes.readRemaining() - TraceLayout.EXCERPT_KIND_SIZE;
        final int kind = length < 0 ? -1 : bytes.readInt();
        if (kind != EXCERPT_AGGREGATION || length < HEADER_SIZE)
        {
            throw corrupt(excerpt, "kind " + kind + ", " + length + " bytes");
        }
        final long base = bytes.readPosition();
        final int targets = bytes.readInt(base + TARGETS);
        final int schemes = bytes.readInt(base + SCHEMES);
        long offset = HEADER_SIZE;
        final List<Snapshot.TargetRegions> list = new ArrayList<>();
        for (int t = 0; t < targets; t++)
        {
            if (offset + TARGET_HEADER_SIZE > length)
            {
                throw corrupt(excerpt, "target " + t + " runs past the excerpt's " + length + " bytes");
            }
            final long pid = bytes.readLong(base + offset + TARGET_PID);
            final int count = bytes.readInt(base + offset + TARGET_REGIONS);
            offset += TARGET_HEADER_SIZE;
            if (count < 0 || offset + (long)count * REGION_SIZE > length)
            {
                throw corrupt(excerpt, "target " + t + " says " + count + " regions, more than the excerpt holds");
            }
            final List<Snapshot.RegionRecord> regions = new ArrayList<>(count);
            for (int r = 0; r < count; r++)
            {
                regions.add(new Snapshot.RegionRecord(bytes.readLong(base + offset + REGION_START),
                    bytes.readLong(base + offset + REGION_END), bytes.readInt(base + offset + REGION_NR_ACCESSES),
                    bytes.readInt(base + offset + REGION_AGE)));
                offset += REGION_SIZE;
            }
            list.add(new Snapshot.TargetRegions(pid, regions));
        }
        if (schemes < 0 || offset + (long)schemes * SCHEME_SIZE != length)
        {
            throw corrupt(excerpt, "it holds " + length + " bytes but its targets take " + offset + " and its "
                + schemes + " schemes " + (long)schemes * SCHEME_SIZE);
        }
        final List<Snapshot.SchemeRecord> schemeList = new ArrayList<>(schemes);
        for (int s = 0; s < schemes; s++)
        {
            final long at = base + offset;
            schemeList.add(new Snapshot.SchemeRecord(bytes.readLong(at + SCHEME_NR_TRIED),
                bytes.readLong(at + SCHEME_SZ_TRIED), bytes.readLong(at + SCHEME_NR_APPLIED),
                bytes.readLong(at + SCHEME_SZ_APPLIED), bytes.readLong(at + SCHEME_SZ_OPS_FILTER_PASSED),
                bytes.readLong(at + SCHEME_QT_EXCEEDS), bytes.readLong(at + SCHEME_ESZ),
                bytes.readLong(at + SCHEME_CHARGED_SZ), bytes.readInt(at + SCHEME_ACTIVE) != 0));
            offset += SCHEME_SIZE;
        }
        return new Snapshot(bytes.readLong(base + AGGREGATION), bytes.readLong(base + START_NS),
            bytes.readLong(base + END_NS), list, schemeList);
    }

    private TraceFormatException corrupt(final int excerpt, final String what)
    {
        return new TraceFormatException("corrupt monitoring record " + dir + ": excerpt " + excerpt + ": " + what);
    }
}
