package io.faultline.damon.record;

/**
 * Layout of a DAMON monitoring record (trace-format/MONITOR-FORMAT.md): a directory like a
 * trace, {@code header.properties} (with {@code content=damon-monitor}) and a Chronicle Queue
 * of raw-bytes excerpts, one per aggregation interval. Little-endian.
 *
 * <pre>
 *   excerpt:  0  u32 kind   3 = aggregation
 *             4  payload:
 *   0   u64 aggregation   index, from 0
 *   8   u64 start_ns      when the aggregation interval began (monitor clock; a trace's own clock for --from-trace)
 *   16  u64 end_ns        when it ended
 *   24  u32 targets       target blocks that follow
 *   28  u32 reserved      0
 *   32  target[targets]:
 *         0   u64 pid
 *         8   u32 regions     region records that follow
 *         12  u32 reserved    0
 *         16  region[regions], 24 bytes each:
 *               0   u64 start
 *               8   u64 end
 *               16  u32 nr_accesses
 *               20  u32 age
 * </pre>
 */
public final class MonitorRecordLayout
{
    public static final int FORMAT_VERSION = 1;
    public static final int EXCERPT_AGGREGATION = 3;

    public static final int AGGREGATION = 0;
    public static final int START_NS = 8;
    public static final int END_NS = 16;
    public static final int TARGETS = 24;
    public static final int HEADER_SIZE = 32;

    public static final int TARGET_PID = 0;
    public static final int TARGET_REGIONS = 8;
    public static final int TARGET_HEADER_SIZE = 16;

    public static final int REGION_START = 0;
    public static final int REGION_END = 8;
    public static final int REGION_NR_ACCESSES = 16;
    public static final int REGION_AGE = 20;
    public static final int REGION_SIZE = 24;

    /** Header keys besides those a trace has (state, format_version, faultline_version, command, page_size...). */
    public static final String OPS = "ops";
    public static final String SOURCE = "source";
    public static final String SAMPLE_US = "sample_us";
    public static final String AGGR_US = "aggr_us";
    public static final String UPDATE_US = "update_us";
    public static final String MIN_REGIONS = "min_regions";
    public static final String MAX_REGIONS = "max_regions";
    public static final String MIN_REGION_SIZE = "min_region_size";
    public static final String SEED = "seed";
    /** Live monitoring: CLOCK_MONOTONIC (ns) at the snapshots' time 0, to relate them to a program's own clock. */
    public static final String START_MONO_NS = "start_mono_ns";
    public static final String TARGETS_KEY = "targets";
    public static final String AGGREGATIONS = "aggregations";

    private MonitorRecordLayout()
    {
    }
}
