package io.faultline.sim;

import io.faultline.sim.policy.IndexedHeap;
import io.faultline.sim.policy.KeyTable;
import io.faultline.sim.policy.LinkedSlots;
import io.faultline.sim.policy.SlotList;
import io.faultline.sim.policy.adaptive.Arc;
import io.faultline.sim.policy.adaptive.Car;
import io.faultline.sim.policy.evms.Evms;
import io.faultline.sim.policy.evms.EvmsModel;
import io.faultline.sim.policy.irr.ClockPro;
import io.faultline.sim.policy.irr.Lirs;
import io.faultline.sim.policy.linked.Clock;
import io.faultline.sim.policy.linked.Fifo;
import io.faultline.sim.policy.linked.Lru;
import io.faultline.sim.policy.linked.S3Fifo;
import io.faultline.sim.policy.linked.SegQ;
import io.faultline.sim.policy.linked.Sieve;
import io.faultline.sim.policy.linked.TwoQueue;
import io.faultline.sim.policy.opt.Opt;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry of policies by name, in the manner of Caffeine's simulator: a name maps to a
 * constructor and the parameters it accepts. Parameters are documented on each policy class.
 */
public final class Policies
{
    /** Builds a policy from its validated spec. */
    @FunctionalInterface
    private interface Factory
    {
        Policy create(PolicySpec spec, int capacity, long[] trace);
    }

    /**
     * What the policy's constructor will allocate, from the same arithmetic, in longs so that no
     * capacity overflows it.
     */
    @FunctionalInterface
    private interface Sizing
    {
        Footprint of(PolicySpec spec, long capacity, long traceLength, long distinct);
    }

    /** One parameter a policy accepts, with the check on its value. */
    private record Parameter(String name, double min, boolean minOpen, double max, boolean maxOpen, List<String> choices)
    {
        static Parameter number(final String name, final double min, final boolean minOpen, final double max, final boolean maxOpen)
        {
            return new Parameter(name, min, minOpen, max, maxOpen, List.of());
        }

        static Parameter fraction(final String name)
        {
            return number(name, 0.0, true, 1.0, true);
        }

        static Parameter choice(final String name, final String... choices)
        {
            return new Parameter(name, 0, false, 0, false, List.of(choices));
        }

        /** Null if {@code value} is acceptable, otherwise what is wrong with it. */
        String problem(final String value)
        {
            if (!choices.isEmpty())
            {
                return choices.contains(value.toLowerCase(java.util.Locale.ROOT)) ? null :
                    "must be one of " + String.join(", ", choices);
            }
            final String range = (minOpen ? "(" : "[") + format(min) + ", " + format(max) + (maxOpen ? ")" : "]");
            final double number;
            try
            {
                number = Double.parseDouble(value);
            }
            catch (final NumberFormatException ex)
            {
                return "must be a number in " + range;
            }
            final boolean aboveMin = minOpen ? number > min : number >= min;
            final boolean belowMax = maxOpen ? number < max : number <= max;
            return aboveMin && belowMax ? null : "must be a number in " + range;
        }

        private static String format(final double value)
        {
            return value == Math.rint(value) ? Long.toString((long)value) : Double.toString(value);
        }
    }

    private record Entry(String name, List<Parameter> parameters, Factory factory, Sizing sizing)
    {
        Parameter parameter(final String param)
        {
            for (final Parameter parameter : parameters)
            {
                if (parameter.name().equals(param))
                {
                    return parameter;
                }
            }
            return null;
        }
    }

    /** Bytes per resident page of {@code evms}, whose model keeps objects, not arrays (see its sizing). */
    static final long EVMS_BYTES_PER_PAGE = 96;

    private static final Map<String, Entry> REGISTRY = new LinkedHashMap<>();

    static
    {
        register("lru", List.of(), (spec, capacity, trace) -> new Lru(capacity),
            (spec, c, length, distinct) -> linked(c, 1, 0));
        register("fifo", List.of(), (spec, capacity, trace) -> new Fifo(capacity),
            (spec, c, length, distinct) -> new Footprint(c, c * Long.BYTES + KeyTable.bytes(c)));
        register("clock", List.of(), (spec, capacity, trace) -> new Clock(capacity),
            (spec, c, length, distinct) -> new Footprint(c, c * (Long.BYTES + 1) + KeyTable.bytes(c)));
        register("segq",
            List.of(Parameter.fraction("lead"), Parameter.choice("trail", "lru", "fifo", "clock")),
            (spec, capacity, trace) -> new SegQ(capacity,
                spec.doubleParam("lead", SegQ.DEFAULT_LEAD),
                SegQ.Trail.valueOf(spec.stringParam("trail", "clock").toUpperCase(java.util.Locale.ROOT))),
            (spec, c, length, distinct) -> linked(c, 2, 1 + Long.BYTES));
        register("2q",
            List.of(Parameter.fraction("kin"), Parameter.number("kout", 0.0, false, 100.0, false)),
            (spec, capacity, trace) -> new TwoQueue(capacity,
                spec.doubleParam("kin", TwoQueue.DEFAULT_KIN), spec.doubleParam("kout", TwoQueue.DEFAULT_KOUT)),
            (spec, c, length, distinct) ->
                linked(c + (long)(c * spec.doubleParam("kout", TwoQueue.DEFAULT_KOUT)) + 1, 3, 0));
        register("arc", List.of(Parameter.choice("integer", "true", "false")),
            (spec, capacity, trace) -> new Arc(capacity, Boolean.parseBoolean(spec.stringParam("integer", "false"))),
            (spec, c, length, distinct) -> linked(2 * c + 1, 4, 0));
        register("car", List.of(), (spec, capacity, trace) -> new Car(capacity),
            (spec, c, length, distinct) -> linked(2 * c + 1, 4, 1));
        register("lirs",
            List.of(Parameter.fraction("hir"), Parameter.number("stack", 0.0, false, 1000.0, false)),
            (spec, capacity, trace) -> new Lirs(capacity,
                spec.doubleParam("hir", Lirs.DEFAULT_HIR), spec.doubleParam("stack", Lirs.DEFAULT_STACK)),
            (spec, c, length, distinct) ->
            {
                final long slots = c + (long)(c * spec.doubleParam("stack", Lirs.DEFAULT_STACK)) + 1;
                // keys, status, free, the key table, and the stack S, queue Q and non-resident lists
                return new Footprint(slots, slots * (Long.BYTES + 1 + Integer.BYTES) + KeyTable.bytes(slots)
                    + 3 * SlotList.bytes(slots));
            });
        register("clock-pro", List.of(), (spec, capacity, trace) -> new ClockPro(capacity),
            (spec, c, length, distinct) ->
            {
                // as many non-resident (test) pages as resident ones; keys, status, referenced,
                // inTest, newer, older, free and the key table
                final long slots = 2 * c + 1;
                return new Footprint(slots, slots * (Long.BYTES + 3 + 3 * Integer.BYTES) + KeyTable.bytes(slots));
            });
        register("sieve", List.of(), (spec, capacity, trace) -> new Sieve(capacity),
            (spec, c, length, distinct) -> linked(c, 1, 1));
        register("s3fifo",
            List.of(Parameter.fraction("small"), Parameter.number("ghost", 0.0, false, 100.0, false)),
            (spec, capacity, trace) ->
            {
                final double small = spec.doubleParam("small", S3Fifo.DEFAULT_SMALL);
                return new S3Fifo(capacity, small, spec.doubleParam("ghost", 1.0 - small));
            },
            (spec, c, length, distinct) ->
            {
                final double small = spec.doubleParam("small", S3Fifo.DEFAULT_SMALL);
                return linked(c + (long)(spec.doubleParam("ghost", 1.0 - small) * c) + 1, 3, 1);
            });
        register("opt", List.of(), (spec, capacity, trace) -> new Opt(capacity, trace),
            // each reference's next use, the pre-pass's table of last positions (every distinct
            // key; it grows, and its last growth holds the old table and the new one, half again),
            // and per resident page its key, the key table and the heap by next use
            (spec, c, length, distinct) -> new Footprint(Math.max(c, distinct), length * Integer.BYTES
                + KeyTable.bytes(distinct) * 3 / 2 + c * Long.BYTES + KeyTable.bytes(c) + IndexedHeap.bytes(c)));
        register("evms",
            List.of(Parameter.number("lead", 1.0, false, 1 << 24, false), Parameter.choice("trail", "none", "fifo", "clock")),
            (spec, capacity, trace) -> new Evms(capacity, (int)spec.doubleParam("lead", Evms.DEFAULT_LEAD),
                EvmsModel.Trail.valueOf(spec.stringParam("trail", "clock").toUpperCase(java.util.Locale.ROOT))),
            // a HashMap from page to an entry object, per resident page: the entry (32 bytes),
            // the map's node (32), the boxed page (16), the map's table and the segments'
            // deques (up to 16 at their worst load)
            (spec, c, length, distinct) -> new Footprint(0, c * EVMS_BYTES_PER_PAGE));
    }

    private Policies()
    {
    }

    private static void register(final String name, final List<Parameter> parameters, final Factory factory,
        final Sizing sizing)
    {
        REGISTRY.put(name, new Entry(name, parameters, factory, sizing));
    }

    /** A policy on {@link LinkedSlots} with {@code extra} bytes more per slot. */
    private static Footprint linked(final long slots, final int lists, final int extra)
    {
        return new Footprint(slots, LinkedSlots.bytes(slots, lists) + slots * extra);
    }

    /**
     * What a {@code spec} policy of {@code capacity} pages will allocate to replay a trace of
     * {@code traceLength} references to {@code distinct} keys.
     */
    public static Footprint footprint(final PolicySpec spec, final long capacity, final long traceLength,
        final long distinct)
    {
        validate(spec);
        return REGISTRY.get(spec.name()).sizing().of(spec, capacity, traceLength, distinct);
    }

    /** The known policy names, in registry order. */
    public static List<String> names()
    {
        return Collections.unmodifiableList(new ArrayList<>(REGISTRY.keySet()));
    }

    /**
     * A new policy instance.
     *
     * @param trace the whole key sequence that will be replayed; only {@code opt} reads it
     *              (for its next-use pre-pass), the others ignore it
     * @throws IllegalArgumentException for an invalid spec or a capacity below 1
     */
    public static Policy create(final PolicySpec spec, final int capacity, final long[] trace)
    {
        checkCapacity(capacity);
        validate(spec);
        return REGISTRY.get(spec.name()).factory().create(spec, capacity, trace);
    }

    static void checkCapacity(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be >= 1: capacity=" + capacity);
        }
    }

    static Entry checkKnown(final String name)
    {
        final Entry entry = REGISTRY.get(name);
        if (entry == null)
        {
            throw new IllegalArgumentException(
                "unknown policy '" + name + "'; known policies: " + String.join(", ", REGISTRY.keySet()));
        }
        return entry;
    }

    static String describeParameters(final String name)
    {
        final Entry entry = checkKnown(name);
        if (entry.parameters().isEmpty())
        {
            return "policy '" + name + "' takes no parameters";
        }
        final List<String> names = new ArrayList<>();
        for (final Parameter parameter : entry.parameters())
        {
            names.add(parameter.name());
        }
        return "known parameters of '" + name + "': " + String.join(", ", names);
    }

    static void validate(final PolicySpec spec)
    {
        final Entry entry = checkKnown(spec.name());
        for (final Map.Entry<String, String> param : spec.params().entrySet())
        {
            final Parameter parameter = entry.parameter(param.getKey());
            if (parameter == null)
            {
                throw new IllegalArgumentException("unknown parameter '" + param.getKey() + "' in '" + spec.label() +
                    "'; " + describeParameters(spec.name()));
            }
            final String problem = parameter.problem(param.getValue());
            if (problem != null)
            {
                throw new IllegalArgumentException("parameter '" + param.getKey() + "' of '" + spec.name() + "' " +
                    problem + ": " + param.getKey() + "=" + param.getValue() + "; " + describeParameters(spec.name()));
            }
        }
    }
}
