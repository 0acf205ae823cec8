package io.faultline.tools;

import io.faultline.damon.Attributes;
import io.faultline.damon.IntervalsGoal;
import picocli.CommandLine.TypeConversionException;

/**
 * One choice of DAMON attributes in the grammar of {@code report accuracy --attrs}: comma
 * separated {@code key=value}, every key optional, the rest DAMON's defaults (5 ms, 100 ms, 1 s,
 * 10 to 1000 regions, no tuning).
 * <pre>
 *   sample=T                        sampling interval
 *   aggr=T                          aggregation interval
 *   update=T                        operations update interval
 *   regions=MIN-MAX                 minimum and maximum number of regions
 *   goal=ACCESS:AGGRS:MIN:MAX       intervals auto-tuning: ACCESS as a percentage (4%) or in basis
 *                                   points (400), every AGGRS aggregations, sampling interval
 *                                   kept within MIN and MAX (durations); goal=recommended is the
 *                                   kernel's 4%:3:5ms:10s
 * </pre>
 * {@code default} alone is DAMON's defaults.
 */
final class AttributeSpec
{
    private static final String GRAMMAR_HEAD = "sample=T,aggr=T,update=T,regions=MIN-MAX,goal=ACCESS";
    private static final String GRAMMAR_TAIL = ":AGGRS:MIN_T:MAX_T (each optional; default alone: DAMON's defaults)";
    static final String GRAMMAR = GRAMMAR_HEAD + "%" + GRAMMAR_TAIL;
    /** As {@link #GRAMMAR} in help text, which picocli formats: its % doubled. */
    static final String GRAMMAR_HELP = GRAMMAR_HEAD + "%%" + GRAMMAR_TAIL;

    private AttributeSpec()
    {
    }

    /** @throws CliException naming the part of {@code spec} that is wrong and the grammar */
    static Attributes parse(final String spec)
    {
        final Attributes d = Attributes.DEFAULTS;
        long sample = d.sampleIntervalUs();
        long aggr = d.aggrIntervalUs();
        long update = d.opsUpdateIntervalUs();
        int minRegions = d.minNrRegions();
        int maxRegions = d.maxNrRegions();
        IntervalsGoal goal = IntervalsGoal.OFF;
        if (!spec.trim().equals("default"))
        {
            for (final String part : spec.split(",", -1))
            {
                final int eq = part.indexOf('=');
                final String key = eq < 0 ? part.trim() : part.substring(0, eq).trim();
                final String value = eq < 0 ? "" : part.substring(eq + 1).trim();
                try
                {
                    switch (key)
                    {
                        case "sample" -> sample = duration(value);
                        case "aggr" -> aggr = duration(value);
                        case "update" -> update = duration(value);
                        case "regions" -> {
                            final String[] bounds = value.split("-", -1);
                            if (bounds.length != 2)
                            {
                                throw new TypeConversionException("regions takes MIN-MAX, e.g. regions=10-1000");
                            }
                            minRegions = Values.wholeInt(bounds[0]);
                            maxRegions = Values.wholeInt(bounds[1]);
                        }
                        case "goal" -> goal = goal(value);
                        default -> throw new TypeConversionException("unknown key '" + key + "'");
                    }
                }
                catch (final TypeConversionException ex)
                {
                    throw new CliException("--attrs '" + spec + "': " + ex.getMessage() + "; give " + GRAMMAR);
                }
            }
        }
        final Attributes attrs = new Attributes(sample, aggr, update, minRegions, maxRegions, goal);
        final String problem = attrs.problem();
        if (problem != null)
        {
            throw new CliException("--attrs '" + spec + "': " + problem);
        }
        return attrs;
    }

    private static long duration(final String text)
    {
        return new Durations().convert(text);
    }

    /**
     * An intervals goal as {@code monitor --intervals-goal} takes it.
     *
     * @throws CliException naming the problem and the grammar
     */
    static IntervalsGoal goalOption(final String value)
    {
        try
        {
            return goal(value);
        }
        catch (final TypeConversionException ex)
        {
            throw new CliException("--intervals-goal '" + value + "': " + ex.getMessage());
        }
    }

    private static IntervalsGoal goal(final String value)
    {
        if (value.equals("recommended"))
        {
            return IntervalsGoal.RECOMMENDED;
        }
        final String[] parts = value.split(":", -1);
        if (parts.length != 4)
        {
            throw new TypeConversionException("goal takes ACCESS:AGGRS:MIN:MAX, e.g. goal=4%:3:5ms:10s");
        }
        final long accessBp;
        if (parts[0].endsWith("%"))
        {
            try
            {
                accessBp = Math.round(Double.parseDouble(parts[0].substring(0, parts[0].length() - 1)) * 100);
            }
            catch (final NumberFormatException ex)
            {
                throw new TypeConversionException("'" + parts[0] + "' is not a percentage (4%)");
            }
        }
        else
        {
            accessBp = Values.wholeLong(parts[0]);
        }
        final long aggrs = Values.wholeLong(parts[1]);
        if (accessBp <= 0 || accessBp > 10_000 || aggrs < 1)
        {
            throw new TypeConversionException("goal needs an access share in (0%, 100%] and at least 1 aggregation");
        }
        return new IntervalsGoal(accessBp, aggrs, duration(parts[2]), duration(parts[3]));
    }

    /** The attributes back in the grammar, for tables: only what differs from the defaults. */
    static String describe(final Attributes a)
    {
        final Attributes d = Attributes.DEFAULTS;
        final StringBuilder text = new StringBuilder();
        text.append("sample=").append(Durations.format(a.sampleIntervalUs()).replace(" ", ""))
            .append(",aggr=").append(Durations.format(a.aggrIntervalUs()).replace(" ", ""));
        if (a.opsUpdateIntervalUs() != d.opsUpdateIntervalUs())
        {
            text.append(",update=").append(Durations.format(a.opsUpdateIntervalUs()).replace(" ", ""));
        }
        if (a.minNrRegions() != d.minNrRegions() || a.maxNrRegions() != d.maxNrRegions())
        {
            text.append(",regions=").append(a.minNrRegions()).append('-').append(a.maxNrRegions());
        }
        final IntervalsGoal g = a.intervalsGoal();
        if (g.enabled())
        {
            text.append(",goal=").append(g.accessBp() % 100 == 0 ? g.accessBp() / 100 + "%" : String.valueOf(g.accessBp()))
                .append(':').append(g.aggrs()).append(':').append(Durations.format(g.minSampleUs()).replace(" ", ""))
                .append(':').append(Durations.format(g.maxSampleUs()).replace(" ", ""));
        }
        return text.toString();
    }
}
