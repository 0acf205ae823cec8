package io.faultline.damon.record;

/**
 * Layout of a DAMON monitoring record (trace-format/MONITOR-FORMAT.md): a directory like a
 * trace, {@code header.properties} (with {@code content=damon-monitor}) and a Chronicle Queue
 * of raw-bytes excerpts, one per aggregation interval. Little-endian. Version 2 added the
 * scheme blocks, in what version 1 had as a reserved 0; a version 1 record reads as one without
 * schemes.
 *
 * <pre>
 *   excerpt:  0  u32 kind   3 = aggregation
 *             4  payload:
 *   0   u64 aggregation   index, from 0
 *   8   u64 start_ns      when the aggregation interval began (monitor clock; a trace's own clock for --from-trace)
 *   16  u64 end_ns        when it ended
 *   24  u32 targets       target blocks that follow
 *   28  u32 schemes       scheme blocks after the targets (version 1: reserved, 0)
 *   32  target[targets]:
 *         0   u64 pid
 *         8   u32 regions     region records that follow
 *         12  u32 reserved    0
 *         16  region[regions], 24 bytes each:
 *               0   u64 start
 *               8   u64 end
 *               16  u32 nr_accesses
 *               20  u32 age
 *   ..  scheme[schemes], 72 bytes each, in scheme order:
 *         0   u64 nr_tried
 *         8   u64 sz_tried
 *         16  u64 nr_applied
 *         24  u64 sz_applied
 *         32  u64 sz_ops_filter_passed
 *         40  u64 qt_exceeds
 *         48  u64 esz             effective size quota of the current charge window (0: none)
 *         56  u64 charged_sz      bytes charged in the current charge window
 *         64  u32 active          1 if the watermarks let the scheme run
 *         68  u32 reserved        0
 * </pre>
 */
public final class MonitorRecordLayout
{
    public static final int FORMAT_VERSION = 2;
    /** The oldest version a reader reads: version 1 had no scheme blocks. */
    public static final int FORMAT_VERSION_MIN = 1;
    public static final int EXCERPT_AGGREGATION = 3;

    public static final int AGGREGATION = 0;
    public static final int START_NS = 8;
    public static final int END_NS = 16;
    public static final int TARGETS = 24;
    public static final int SCHEMES = 28;
    public static final int HEADER_SIZE = 32;

    public static final int TARGET_PID = 0;
    public static final int TARGET_REGIONS = 8;
    public static final int TARGET_HEADER_SIZE = 16;

    public static final int REGION_START = 0;
    public static final int REGION_END = 8;
    public static final int REGION_NR_ACCESSES = 16;
    public static final int REGION_AGE = 20;
    public static final int REGION_SIZE = 24;

    public static final int SCHEME_NR_TRIED = 0;
    public static final int SCHEME_SZ_TRIED = 8;
    public static final int SCHEME_NR_APPLIED = 16;
    public static final int SCHEME_SZ_APPLIED = 24;
    public static final int SCHEME_SZ_OPS_FILTER_PASSED = 32;
    public static final int SCHEME_QT_EXCEEDS = 40;
    public static final int SCHEME_ESZ = 48;
    public static final int SCHEME_CHARGED_SZ = 56;
    public static final int SCHEME_ACTIVE = 64;
    public static final int SCHEME_SIZE = 72;

    /** Header keys besides those a trace has (state, format_version, faultline_version, command, page_size...). */
    public static final String OPS = "ops";
    public static final String SOURCE = "source";
    public static final String SAMPLE_US = "sample_us";
    public static final String AGGR_US = "aggr_us";
    public static final String UPDATE_US = "update_us";
    public static final String MIN_REGIONS = "min_regions";
    public static final String MAX_REGIONS = "max_regions";
    public static final String MIN_REGION_SIZE = "min_region_size";
    /**
     * The intervals auto-tuning goal, {@code ACCESS_BP:AGGRS:MIN_SAMPLE_US:MAX_SAMPLE_US}, when
     * tuning was on; sample_us and aggr_us are then the starting intervals.
     */
    public static final String INTERVALS_GOAL = "intervals_goal";
    public static final String SEED = "seed";
    /** Live monitoring: CLOCK_MONOTONIC (ns) at the snapshots' time 0, to relate them to a program's own clock. */
    public static final String START_MONO_NS = "start_mono_ns";
    public static final String TARGETS_KEY = "targets";
    public static final String AGGREGATIONS = "aggregations";
    /** Prefix of the schemes' keys: scheme.0, scheme.1... each the scheme in --scheme grammar. */
    public static final String SCHEME_PREFIX = "scheme.";

    private MonitorRecordLayout()
    {
    }
}
