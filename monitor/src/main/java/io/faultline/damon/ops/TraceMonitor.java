package io.faultline.damon.ops;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import io.faultline.damon.Attributes;
import io.faultline.damon.DamonContext;
import io.faultline.damon.DamonRandom;
import io.faultline.damon.MonitorClock;
import io.faultline.damon.record.MonitorRecordLayout;
import io.faultline.damon.record.MonitorRecordWriter;
import io.faultline.damon.schemes.Scheme;
import io.faultline.format.TraceHeader;

/**
 * Monitors a recorded trace with the {@code trace} operations set and writes every aggregation
 * into a monitoring record: what {@code faultline monitor --from-trace} does.
 */
public final class TraceMonitor
{
    /** What one run produced. */
    /** @param notes what reading the trace had to say ({@link TraceIndex#notes}), one line each */
    public record Result(int targets, long aggregations, long traceEndNs, List<String> notes)
    {
    }

    private TraceMonitor()
    {
    }

    /**
     * @param seed seeds the core's random choices (sampling addresses, split sizes): the same
     *             seed on the same trace gives the same record
     * @throws io.faultline.format.TraceFormatException if the trace cannot be read or the output written
     * @throws IllegalArgumentException                 if the attributes are not valid
     */
    public static Result run(final Path trace, final Path out, final Attributes attrs, final long seed)
        throws Exception
    {
        return run(trace, out, attrs, seed, List.of());
    }

    /**
     * Monitors with DAMOS schemes, applied with the {@code trace} operations set's simulated
     * actions; the record holds their statistics and its header the schemes
     * ({@code scheme.N}).
     *
     * @throws IllegalArgumentException if the attributes or a scheme are not valid
     */
    public static Result run(final Path trace, final Path out, final Attributes attrs, final long seed,
        final List<Scheme> schemes) throws Exception
    {
        return run(trace, out, attrs, seed, schemes, false);
    }

    /** As {@link #run(Path, Path, Attributes, long, List)}, reading past corrupt excerpts if {@code skipCorrupt}. */
    public static Result run(final Path trace, final Path out, final Attributes attrs, final long seed,
        final List<Scheme> schemes, final boolean skipCorrupt) throws Exception
    {
        attrs.validated();
        MonitorRecordWriter.checkSchemes(schemes);
        final TraceIndex index = TraceIndex.read(trace, null, skipCorrupt);
        final TraceOperations ops = new TraceOperations(index);
        final TraceHeader start = MonitorRecordWriter.header(attrs, ops.id(), index.pageSize(), seed, schemes)
            .put(MonitorRecordLayout.SOURCE, trace.toAbsolutePath())
            .put(TraceHeader.PAGE_SIZE, index.pageSize())
            .put(TraceHeader.COMMAND, index.command() == null ? "" : index.command())
            .put(MonitorRecordLayout.TARGETS_KEY, index.pids().stream().map(String::valueOf)
                .collect(Collectors.joining(",")));
        try (MonitorRecordWriter writer = MonitorRecordWriter.create(out, start))
        {
            final DamonContext ctx = new DamonContext(attrs, ops, writer, DamonRandom.seeded(seed),
                MonitorClock.virtual(), index.pageSize());
            ops.addTargets(ctx);
            schemes.forEach(ctx::addScheme);
            ctx.run();
            final TraceHeader end = TraceHeader.create();
            start.values().forEach(end::put);
            end.put(TraceHeader.END_TIME, Instant.now());
            end.put(TraceHeader.DURATION_NS, index.endNs());
            writer.finish(end);
            return new Result(index.pids().size(), writer.aggregations(), index.endNs(), index.notes());
        }
    }
}
