package io.faultline.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

import io.faultline.damon.Attributes;
import io.faultline.damon.SchemeAction;
import io.faultline.damon.schemes.AccessPattern;
import io.faultline.damon.schemes.Filter;
import io.faultline.damon.schemes.FreeMemRate;
import io.faultline.damon.schemes.PressureStall;
import io.faultline.damon.schemes.Quota;
import io.faultline.damon.schemes.QuotaGoal;
import io.faultline.damon.schemes.Scheme;
import io.faultline.damon.schemes.UserInputFile;
import io.faultline.damon.schemes.Watermarks;

/**
 * A DAMOS scheme as {@code faultline monitor --scheme} takes it, damo-like: comma-separated
 * {@code KEY=VALUE} fields, e.g. {@code action=pageout,sz=4K-max,nr_accesses=0-0,age=2s-max}.
 * Values use the grammar of every command (sizes: {@link Size}; durations: {@link Values#duration}).
 * Ranges are {@code MIN-MAX}, either end {@code min} or {@code max}; nr_accesses counts samples
 * or a percentage of the most an aggregation holds ({@code 0%-10%}, damo's conversion: the
 * percentage of the maximum, rounded down); age counts aggregation intervals or a duration
 * (divided by the aggregation interval, rounded down). {@link Draft} is what the SPEC and the
 * JSON form ({@link SchemesJson}) both fill.
 */
final class SchemeSpec
{
    static final String KEYS = "action, sz, nr_accesses, age, apply_interval, quota_ms, quota_sz, quota_reset, weights,"
        + " goal, wmarks, filter";

    private SchemeSpec()
    {
    }

    /** A scheme being read: every field with damo's default (stat on every region, no limits). */
    static final class Draft
    {
        final Attributes attrs;
        SchemeAction action;
        long minSz;
        long maxSz = AccessPattern.MAX;
        long minNrAccesses;
        long maxNrAccesses = AccessPattern.MAX;
        long minAge;
        long maxAge = AccessPattern.MAX;
        long applyIntervalUs;
        long quotaMs;
        long quotaSz;
        long quotaResetMs;
        int[] weights = {0, 0, 0};
        final List<QuotaGoal> goals = new ArrayList<>();
        Watermarks watermarks = Watermarks.none();
        final List<Filter> filters = new ArrayList<>();

        Draft(final Attributes attrs)
        {
            this.attrs = attrs;
        }

        /** @throws IllegalArgumentException naming the problem if the scheme is not valid */
        Scheme build()
        {
            if (action == null)
            {
                throw new IllegalArgumentException("no action; give action=ACTION (" + actions() + ")");
            }
            final Scheme s = new Scheme(new AccessPattern(minSz, maxSz, minNrAccesses, maxNrAccesses, minAge, maxAge),
                action, applyIntervalUs, new Quota(quotaMs, quotaSz, quotaResetMs, weights[0], weights[1], weights[2],
                    goals), watermarks, filters);
            final String problem = s.problem();
            if (problem != null)
            {
                throw new IllegalArgumentException(problem);
            }
            return s;
        }
    }

    static String actions()
    {
        final StringBuilder b = new StringBuilder();
        for (final SchemeAction a : SchemeAction.values())
        {
            b.append(b.length() == 0 ? "" : ", ").append(a.label());
        }
        return b.toString();
    }

    /**
     * @throws CliException naming the field and the fix if {@code spec} is not a scheme
     */
    static Scheme parse(final String spec, final Attributes attrs)
    {
        final Draft d = new Draft(attrs);
        for (final String field : spec.split(","))
        {
            final int eq = field.indexOf('=');
            final String key = eq < 0 ? field.trim() : field.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            final String value = eq < 0 ? "" : field.substring(eq + 1).trim();
            try
            {
                if (eq < 0 || value.isEmpty())
                {
                    throw new IllegalArgumentException("'" + field + "' has no value; give " + key + "=VALUE");
                }
                set(d, key, value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CliException("--scheme '" + spec + "': " + ex.getMessage());
            }
        }
        try
        {
            return d.build();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException("--scheme '" + spec + "': " + ex.getMessage());
        }
    }

    private static void set(final Draft d, final String key, final String value)
    {
        switch (key)
        {
            case "action" -> d.action = action(value);
            case "sz" ->
            {
                final String[] r = range(key, value);
                d.minSz = size(key, r[0]);
                d.maxSz = size(key, r[1]);
            }
            case "nr_accesses" ->
            {
                final String[] r = range(key, value);
                d.minNrAccesses = nrAccesses(r[0], d.attrs);
                d.maxNrAccesses = nrAccesses(r[1], d.attrs);
            }
            case "age" ->
            {
                final String[] r = range(key, value);
                d.minAge = age(r[0], d.attrs);
                d.maxAge = age(r[1], d.attrs);
            }
            case "apply_interval" -> d.applyIntervalUs = durationUs(key, value);
            case "quota_ms" -> d.quotaMs = value.chars().allMatch(Character::isDigit) ? whole(key, value)
                : durationUs(key, value) / 1000;
            case "quota_sz" -> d.quotaSz = size(key, value);
            case "quota_reset" -> d.quotaResetMs = durationUs(key, value) / 1000;
            case "weights" ->
            {
                final String[] w = value.split(":");
                if (w.length != 3)
                {
                    throw new IllegalArgumentException("weights takes SZ:FREQ:AGE, three whole numbers, not '" + value
                        + "'");
                }
                for (int i = 0; i < 3; i++)
                {
                    d.weights[i] = (int)Math.min(whole("weights", w[i]), Integer.MAX_VALUE / 4);
                }
            }
            case "goal" -> d.goals.add(goal(value));
            case "wmarks" -> d.watermarks = watermarks(value);
            case "filter" -> d.filters.add(filter(value));
            default -> throw new IllegalArgumentException("unknown key '" + key + "'; the keys are " + KEYS);
        }
    }

    static SchemeAction action(final String value)
    {
        final SchemeAction a = SchemeAction.byLabel(value);
        if (a == null)
        {
            throw new IllegalArgumentException("unknown action '" + value + "'; give one of " + actions());
        }
        return a;
    }

    private static String[] range(final String key, final String value)
    {
        final int dash = value.indexOf('-');
        if (dash <= 0 || dash == value.length() - 1 || value.indexOf('-', dash + 1) >= 0)
        {
            throw new IllegalArgumentException(key + " takes a range MIN-MAX (" + key + "=0-max), not '" + value + "'");
        }
        return new String[] {value.substring(0, dash).trim(), value.substring(dash + 1).trim()};
    }

    private static long whole(final String key, final String text)
    {
        try
        {
            final long v = Long.parseLong(text.trim());
            if (v < 0)
            {
                throw new NumberFormatException();
            }
            return v;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(key + ": '" + text + "' is not a whole number");
        }
    }

    private static long size(final String key, final String text)
    {
        try
        {
            return size(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(key + ": " + ex.getMessage());
        }
    }

    /** A range end without spaces; min and max as the bounds of every range, else -1 with the text to read. */
    private static long bound(final String t)
    {
        if (t.equalsIgnoreCase("min"))
        {
            return 0;
        }
        return t.equalsIgnoreCase("max") ? AccessPattern.MAX : -1;
    }

    private static boolean digits(final String t)
    {
        return !t.isEmpty() && t.chars().allMatch(Character::isDigit);
    }

    /** A size bound: min, max, or bytes ({@link Size}, a plain number counting bytes). */
    static long size(final String text)
    {
        final String t = text.replaceAll("\\s+", "");
        final long b = bound(t);
        return b >= 0 ? b : Size.parse(t).bytes();
    }

    /** An nr_accesses bound: min, max, samples, or a percentage of the most an aggregation holds. */
    static long nrAccesses(final String text, final Attributes attrs)
    {
        final String t = text.replaceAll("\\s+", "");
        final long b = bound(t);
        if (b >= 0)
        {
            return b;
        }
        if (t.endsWith("%"))
        {
            return whole("nr_accesses", t.substring(0, t.length() - 1)) * attrs.maxNrAccesses() / 100;
        }
        if (!digits(t))
        {
            throw new IllegalArgumentException("nr_accesses: '" + text + "' is not a number of samples or a"
                + " percentage; give 0-0, 0%-10% or 5-max");
        }
        return whole("nr_accesses", t);
    }

    /** An age bound: min, max, aggregation intervals, or a duration. */
    static long age(final String text, final Attributes attrs)
    {
        final String t = text.replaceAll("\\s+", "");
        final long b = bound(t);
        if (b >= 0)
        {
            return b;
        }
        return digits(t) ? whole("age", t) : durationUs("age", t) / attrs.aggrIntervalUs();
    }

    static long durationUs(final String key, final String text)
    {
        try
        {
            return Values.duration(text).toNanos() / 1000;
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(key + ": '" + text + "' is not a duration; " + Values.DURATION_FIX);
        }
    }

    /** {@code METRIC:TARGET[:FILE]}. */
    static QuotaGoal goal(final String value)
    {
        final String[] f = value.split(":", 3);
        if (f.length < 2)
        {
            throw new IllegalArgumentException("goal takes METRIC:TARGET[:FILE] (user_input:100:FILE or"
                + " some_mem_psi_us:10ms), not '" + value + "'");
        }
        return goal(f[0], f[1], f.length > 2 ? f[2] : null);
    }

    static QuotaGoal goal(final String metric, final String target, final String file)
    {
        switch (metric.trim().toLowerCase(Locale.ROOT))
        {
            case "user_input" ->
            {
                if (file == null || file.isBlank())
                {
                    throw new IllegalArgumentException("a user_input goal needs the file its value is read from:"
                        + " goal=user_input:TARGET:FILE");
                }
                final long value = whole("goal", target);
                final Path input = Path.of(file);
                if (!Files.isReadable(input))
                {
                    throw new IllegalArgumentException("cannot read " + input + "; write the current value of the"
                        + " user_input goal into it first (it is read again at every quota reset)");
                }
                return new QuotaGoal(QuotaGoal.Metric.USER_INPUT, positive(value), new UserInputFile(input));
            }
            case "some_mem_psi_us" ->
            {
                final String t = target.trim();
                final long us = !t.isEmpty() && t.chars().allMatch(Character::isDigit) ? whole("goal", t)
                    : durationUs("goal", t);
                final Path pressure = file == null || file.isBlank() ? PressureStall.SYSTEM : Path.of(file);
                if (!Files.isReadable(pressure))
                {
                    throw new IllegalArgumentException("cannot read " + pressure + " (the kernel's memory pressure"
                        + " stall information); give a cgroup's memory.pressure: goal=some_mem_psi_us:TARGET:FILE");
                }
                return new QuotaGoal(QuotaGoal.Metric.SOME_MEM_PSI_US, positive(us), new PressureStall(pressure));
            }
            default -> throw new IllegalArgumentException("unknown goal metric '" + metric
                + "'; give user_input or some_mem_psi_us");
        }
    }

    private static long positive(final long target)
    {
        if (target <= 0)
        {
            throw new IllegalArgumentException("a goal's target must be positive: " + target);
        }
        return target;
    }

    /** {@code METRIC:INTERVAL:HIGH:MID:LOW}, the levels per thousand. */
    static Watermarks watermarks(final String value)
    {
        final String[] f = value.split(":");
        if (f.length != 5)
        {
            throw new IllegalArgumentException("wmarks takes METRIC:INTERVAL:HIGH:MID:LOW (free_mem_rate:1s:500:400:200),"
                + " not '" + value + "'");
        }
        return watermarks(f[0], durationUs("wmarks", f[1]), whole("wmarks", f[2]), whole("wmarks", f[3]),
            whole("wmarks", f[4]));
    }

    static Watermarks watermarks(final String metric, final long intervalUs, final long high, final long mid,
        final long low)
    {
        return switch (metric.trim().toLowerCase(Locale.ROOT))
        {
            case "none" -> Watermarks.none();
            case "free_mem_rate" -> new Watermarks(Watermarks.Metric.FREE_MEM_RATE, intervalUs, high, mid, low,
                freeMemRate());
            default -> throw new IllegalArgumentException("unknown watermark metric '" + metric
                + "'; give free_mem_rate");
        };
    }

    /** This machine's free memory; the command checks that it can be read before monitoring starts. */
    private static LongSupplier freeMemRate()
    {
        return new FreeMemRate(FreeMemRate.MEMINFO);
    }

    /** {@code TYPE:in|out[:ARG]}; a TYPE written {@code !TYPE} matches what TYPE does not. */
    static Filter filter(final String value)
    {
        final String[] f = value.split(":", 3);
        if (f.length < 2)
        {
            throw new IllegalArgumentException("filter takes TYPE:in|out[:ARG] (anon:out, addr:in:0x7f00-0x7f80,"
                + " target:in:0), not '" + value + "'");
        }
        final boolean allow = switch (f[1].trim().toLowerCase(Locale.ROOT))
        {
            case "in" -> true;
            case "out" -> false;
            default -> throw new IllegalArgumentException("a filter is in or out, not '" + f[1] + "': " + value);
        };
        String type = f[0].trim().toLowerCase(Locale.ROOT);
        final boolean matching = !type.startsWith("!");
        type = matching ? type : type.substring(1);
        return filter(type, matching, allow, f.length > 2 ? f[2] : null);
    }

    static Filter filter(final String type, final boolean matching, final boolean allow, final String arg)
    {
        return switch (type)
        {
            case "anon" -> Filter.anon(matching, allow);
            case "addr" ->
            {
                if (arg == null)
                {
                    throw new IllegalArgumentException("an addr filter needs its range: addr:in:START-END");
                }
                final String[] r = range("addr filter", arg);
                yield Filter.addr(matching, allow, address(r[0]), address(r[1]));
            }
            case "target" ->
            {
                if (arg == null)
                {
                    throw new IllegalArgumentException("a target filter needs the target's index: target:in:0");
                }
                yield Filter.target(matching, allow, (int)Math.min(whole("target filter", arg), Integer.MAX_VALUE));
            }
            default -> throw new IllegalArgumentException("unknown filter type '" + type
                + "'; give anon, addr or target");
        };
    }

    static long address(final String text)
    {
        final String t = text.trim().toLowerCase(Locale.ROOT);
        try
        {
            return t.startsWith("0x") ? Long.parseUnsignedLong(t.substring(2), 16) : Long.parseUnsignedLong(t);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("'" + text + "' is not an address; give 0x7f00 or a decimal number");
        }
    }
}
