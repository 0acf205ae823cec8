package io.faultline.fuzz;

import java.util.Arrays;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * One change to a valid input, as a mutation fuzzer makes them: flip a bit, set a byte to a
 * boundary value, cut the input short, drop or repeat a run of bytes. Positions are fractions
 * of the input's length, so one mutation applies to any input and shrinks toward the start.
 *
 * @param kind     what is done
 * @param at       where, as a fraction of the length in [0, 1)
 * @param length   how many bytes a run covers
 * @param value    the byte set, or the bit flipped (its low 3 bits)
 */
record Mutation(Kind kind, double at, int length, int value)
{
    enum Kind
    {
        FLIP_BIT, SET_BYTE, TRUNCATE, DELETE_RUN, REPEAT_RUN, INSERT_BYTES
    }

    /** Bytes that break parsers most: zeros, all ones, signs, separators of text formats. */
    private static final List<Integer> BOUNDARY = List.of(0, 0xff, 0x7f, 0x80, 0x01, (int)'\n', (int)',', (int)' ', (int)'-', (int)'9', (int)'x');

    static Arbitrary<Mutation> any()
    {
        return Combinators.combine(Arbitraries.of(Kind.class), Arbitraries.doubles().between(0, 0.999999).ofScale(6),
            Arbitraries.integers().between(1, 64), Arbitraries.oneOf(Arbitraries.of(BOUNDARY),
                Arbitraries.integers().between(0, 255))).as(Mutation::new);
    }

    /** Up to {@code max} mutations in a row. */
    static Arbitrary<List<Mutation>> several(final int max)
    {
        return any().list().ofMinSize(1).ofMaxSize(max);
    }

    byte[] apply(final byte[] input)
    {
        if (input.length == 0)
        {
            return kind == Kind.INSERT_BYTES ? filled(length) : input;
        }
        final int i = (int)(at * input.length);
        final int run = Math.min(length, input.length - i);
        return switch (kind)
        {
            case FLIP_BIT ->
            {
                final byte[] out = input.clone();
                out[i] ^= (byte)(1 << (value & 7));
                yield out;
            }
            case SET_BYTE ->
            {
                final byte[] out = input.clone();
                out[i] = (byte)value;
                yield out;
            }
            case TRUNCATE -> Arrays.copyOf(input, i);
            case DELETE_RUN -> concat(Arrays.copyOf(input, i), Arrays.copyOfRange(input, i + run, input.length));
            case REPEAT_RUN -> concat(Arrays.copyOf(input, i + run), Arrays.copyOfRange(input, i, input.length));
            case INSERT_BYTES -> concat(concat(Arrays.copyOf(input, i), filled(length)),
                Arrays.copyOfRange(input, i, input.length));
        };
    }

    static byte[] applyAll(final List<Mutation> mutations, final byte[] input)
    {
        byte[] out = input;
        for (final Mutation mutation : mutations)
        {
            out = mutation.apply(out);
        }
        return out;
    }

    private byte[] filled(final int n)
    {
        final byte[] bytes = new byte[n];
        Arrays.fill(bytes, (byte)value);
        return bytes;
    }

    private static byte[] concat(final byte[] a, final byte[] b)
    {
        final byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
