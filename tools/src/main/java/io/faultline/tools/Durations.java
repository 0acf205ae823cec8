package io.faultline.tools;

import picocli.CommandLine;

/**
 * Intervals in microseconds (DAMON's, as its attributes count them; Moca's, record --interval),
 * read with the one duration grammar of every command ({@link Values#duration}: 500us, 5ms, 1.5s,
 * 2m), and written back for messages.
 */
final class Durations implements CommandLine.ITypeConverter<Long>
{
    @Override
    public Long convert(final String text)
    {
        return Values.duration(text).toNanos() / 1_000;
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
