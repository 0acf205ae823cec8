package io.faultline.tools;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine;

/** Time options as DAMON's tools write them: 500us, 5ms, 1s, 2m; a bare number counts microseconds (as damo). */
final class Durations implements CommandLine.ITypeConverter<Long>
{
    private static final Pattern DURATION = Pattern.compile("(\\d+)(us|ms|s|m)?");

    @Override
    public Long convert(final String text)
    {
        final Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches())
        {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a duration; give e.g. 500us, 5ms, 1s");
        }
        final long value = Long.parseLong(m.group(1));
        final String unit = m.group(2) == null ? "us" : m.group(2);
        return switch (unit)
        {
            case "ms" -> value * 1_000;
            case "s" -> value * 1_000_000;
            case "m" -> value * 60_000_000;
            default -> value;
        };
    }

    /** 5000 us as "5 ms", for messages. */
    static String format(final long us)
    {
        if (us % 1_000_000 == 0)
        {
            return us / 1_000_000 + " s";
        }
        if (us % 1_000 == 0)
        {
            return us / 1_000 + " ms";
        }
        return us + " us";
    }
}
