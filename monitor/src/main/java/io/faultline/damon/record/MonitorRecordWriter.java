package io.faultline.damon.record;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.damon.Callbacks;
import io.faultline.damon.DamonContext;
import io.faultline.damon.IntervalsGoal;
import io.faultline.damon.schemes.Scheme;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.ExpandableArrayBuffer;

import static io.faultline.damon.record.MonitorRecordLayout.*;

/**
 * Writes a monitoring record with the trace machinery ({@link TraceWriter}: the header with
 * state=recording at once and state=complete at the end, one Chronicle excerpt per
 * aggregation). As a {@link Callbacks}, it records every aggregation of a running context at
 * {@link Callbacks#aggregated}, with its schemes' statistics.
 */
public final class MonitorRecordWriter implements Callbacks, AutoCloseable
{
    private final TraceWriter writer;
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(1 << 16);
    /** Volatile: a progress line reads it on another thread (one writer, the monitoring loop). */
    private volatile long aggregations;
    private long lastEndNs;

    private MonitorRecordWriter(final TraceWriter writer)
    {
        this.writer = writer;
    }

    /** The header keys every record has: content, format version, attributes. */
    public static TraceHeader header(final Attributes attrs, final String ops, final long minRegionSize)
    {
        final TraceHeader header = TraceHeader.create();
        final IntervalsGoal goal = attrs.intervalsGoal();
        if (goal.enabled())
        {
            header.put(INTERVALS_GOAL, goal.accessBp() + ":" + goal.aggrs() + ":" + goal.minSampleUs() + ":"
                + goal.maxSampleUs());
        }
        return header
            .put(TraceHeader.CONTENT, TraceLayout.CONTENT_MONITOR)
            .put(TraceHeader.FORMAT_VERSION, FORMAT_VERSION)
            .put(OPS, ops)
            .put(SAMPLE_US, attrs.sampleIntervalUs())
            .put(AGGR_US, attrs.aggrIntervalUs())
            .put(UPDATE_US, attrs.opsUpdateIntervalUs())
            .put(MIN_REGIONS, attrs.minNrRegions())
            .put(MAX_REGIONS, attrs.maxNrRegions())
            .put(MIN_REGION_SIZE, minRegionSize);
    }

    /** @throws IllegalArgumentException naming the first scheme's problem, if one is not valid */
    public static void checkSchemes(final List<Scheme> schemes)
    {
        for (final Scheme s : schemes)
        {
            if (s.problem() != null)
            {
                throw new IllegalArgumentException(s.problem());
            }
        }
    }

    /**
     * The starting header of a monitor run: {@link #header(Attributes, String, long)}, the seed,
     * where and when it runs, and each scheme (SCHEME_PREFIX + index).
     */
    public static TraceHeader header(final Attributes attrs, final String ops, final long minRegionSize, final long seed,
        final List<Scheme> schemes)
    {
        final TraceHeader header = header(attrs, ops, minRegionSize)
            .put(SEED, seed)
            .put(TraceHeader.HOST, host())
            .put(TraceHeader.START_TIME, Instant.now());
        for (int i = 0; i < schemes.size(); i++)
        {
            header.put(SCHEME_PREFIX + i, schemes.get(i));
        }
        return header;
    }

    private static String host()
    {
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    /**
     * Creates the record directory (new, or empty) and writes the starting header.
     *
     * @throws io.faultline.format.TraceFormatException if the directory cannot take a record
     */
    public static MonitorRecordWriter create(final Path dir, final TraceHeader start) throws IOException
    {
        return new MonitorRecordWriter(TraceWriter.create(dir, start));
    }

    public long aggregations()
    {
        return aggregations;
    }

    @Override
    public void aggregated(final DamonContext ctx)
    {
        write(Snapshot.of(ctx, aggregations, lastEndNs));
    }

    /** Appends one aggregation's excerpt. */
    public void write(final Snapshot snapshot)
    {
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        // The payload after the kind word, which TraceWriter writes.
        buffer.putLong(AGGREGATION, snapshot.aggregation(), le);
        buffer.putLong(START_NS, snapshot.startNs(), le);
        buffer.putLong(END_NS, snapshot.endNs(), le);
        buffer.putInt(TARGETS, snapshot.targets().size(), le);
        buffer.putInt(SCHEMES, snapshot.schemes().size(), le);
        int offset = HEADER_SIZE;
        for (final Snapshot.TargetRegions target : snapshot.targets())
        {
            buffer.putLong(offset + TARGET_PID, target.pid(), le);
            buffer.putInt(offset + TARGET_REGIONS, target.regions().size(), le);
            buffer.putInt(offset + TARGET_REGIONS + 4, 0, le);
            offset += TARGET_HEADER_SIZE;
            for (final Snapshot.RegionRecord r : target.regions())
            {
                buffer.putLong(offset + REGION_START, r.start(), le);
                buffer.putLong(offset + REGION_END, r.end(), le);
                buffer.putInt(offset + REGION_NR_ACCESSES, r.nrAccesses(), le);
                buffer.putInt(offset + REGION_AGE, r.age(), le);
                offset += REGION_SIZE;
            }
        }
        for (final Snapshot.SchemeRecord s : snapshot.schemes())
        {
            buffer.putLong(offset + SCHEME_NR_TRIED, s.nrTried(), le);
            buffer.putLong(offset + SCHEME_SZ_TRIED, s.szTried(), le);
            buffer.putLong(offset + SCHEME_NR_APPLIED, s.nrApplied(), le);
            buffer.putLong(offset + SCHEME_SZ_APPLIED, s.szApplied(), le);
            buffer.putLong(offset + SCHEME_SZ_OPS_FILTER_PASSED, s.szOpsFilterPassed(), le);
            buffer.putLong(offset + SCHEME_QT_EXCEEDS, s.qtExceeds(), le);
            buffer.putLong(offset + SCHEME_ESZ, s.esz(), le);
            buffer.putLong(offset + SCHEME_CHARGED_SZ, s.chargedSz(), le);
            buffer.putInt(offset + SCHEME_ACTIVE, s.active() ? 1 : 0, le);
            buffer.putInt(offset + SCHEME_ACTIVE + 4, 0, le);
            offset += SCHEME_SIZE;
        }
        writer.write(EXCERPT_AGGREGATION, buffer, 0, offset);
        aggregations++;
        lastEndNs = snapshot.endNs();
    }

    /** Writes the final header (state=complete, the number of aggregations) and closes the queue. */
    public void finish(final TraceHeader end) throws IOException
    {
        end.put(AGGREGATIONS, aggregations);
        writer.finish(end);
    }

    @Override
    public void close()
    {
        writer.close();
    }
}
