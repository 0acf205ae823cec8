package io.faultline.tools;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine;
import picocli.CommandLine.TypeConversionException;

/**
 * The values every command takes, one converter per kind, registered by type so that every
 * option of that type reads them the same way: whole numbers ({@code int}, {@code long}),
 * sizes ({@link Size}) and durations ({@link Duration}). A converter's error reads
 * {@code 'TEXT' is not a ...; FIX}; {@link Main} puts the option's name before it. Ranges are
 * checked after parsing, in the style {@code --option must be between MIN and MAX: VALUE}.
 */
final class Values
{
    static final String DURATION_FIX = "give a number with ns, us, ms, s or m (250ms, 1.5s)";

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|m)");

    private Values()
    {
    }

    static void register(final CommandLine commandLine)
    {
        commandLine.registerConverter(Integer.class, Values::wholeInt);
        commandLine.registerConverter(Integer.TYPE, Values::wholeInt);
        commandLine.registerConverter(Long.class, Values::wholeLong);
        commandLine.registerConverter(Long.TYPE, Values::wholeLong);
        commandLine.registerConverter(Size.class, text ->
        {
            try
            {
                return Size.parse(text);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new TypeConversionException(ex.getMessage());
            }
        });
        commandLine.registerConverter(Duration.class, Values::duration);
    }

    static int wholeInt(final String text)
    {
        final long value = wholeLong(text);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)
        {
            throw new TypeConversionException("'" + text + "' is too large");
        }
        return (int)value;
    }

    static long wholeLong(final String text)
    {
        final String t = text.trim();
        final int digits = t.startsWith("-") ? 1 : 0;
        if (t.length() == digits || !t.substring(digits).chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            throw new TypeConversionException("'" + text + "' is not a whole number");
        }
        try
        {
            return Long.parseLong(t);
        }
        catch (final NumberFormatException ex)
        {
            throw new TypeConversionException("'" + text + "' is too large");
        }
    }

    /** A duration with a unit: ns, us, ms, s or m (minutes); a decimal fraction is allowed. */
    static Duration duration(final String text)
    {
        final Matcher m = DURATION.matcher(text.trim());
        if (!m.matches())
        {
            throw new TypeConversionException("'" + text + "' is not a duration; " + DURATION_FIX);
        }
        final long nanosPerUnit = switch (m.group(2))
        {
            case "ns" -> 1L;
            case "us" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            default -> 60_000_000_000L;
        };
        try
        {
            // Exact decimal arithmetic: 1.5s is 1500000000 ns, not a double's neighbour of it.
            final BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(nanosPerUnit));
            return Duration.ofNanos(nanos.setScale(0, java.math.RoundingMode.FLOOR).longValueExact());
        }
        catch (final ArithmeticException ex)
        {
            throw new TypeConversionException("'" + text + "' is too large");
        }
    }

    /** @return {@code value} as an int if it lies in [min, max] */
    static int between(final String option, final long value, final int min, final int max)
    {
        if (value < min || value > max)
        {
            throw new CliException(option + " must be between " + min + " and " + max + ": " + value);
        }
        return (int)value;
    }

    /** @return {@code value} as an int if it lies in [min, Integer.MAX_VALUE] */
    static int atLeast(final String option, final long value, final int min)
    {
        if (value < min || value > Integer.MAX_VALUE)
        {
            throw new CliException(value < min ? option + " must be at least " + min + ": " + value
                : option + " must be at most " + Integer.MAX_VALUE + ": " + value);
        }
        return (int)value;
    }
}
