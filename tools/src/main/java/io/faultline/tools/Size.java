package io.faultline.tools;

import java.util.Locale;

/**
 * A size as every command takes it: a plain whole number, which counts pages for options that
 * count pages ({@code --sizes}, {@code --max-size}, {@code --evms}) and bytes for options that
 * count bytes ({@code --ring-size}, {@code --page-size}); or bytes with a binary suffix, K, M,
 * G (also KB/KiB, MB/MiB, GB/GiB, any case), each a power of 1024. Bytes given to an option
 * that counts pages are converted at the page size and must be a whole number of pages.
 *
 * @param number the number as written, before the suffix
 * @param unit   bytes per unit of the suffix; 1 for a plain number
 * @param text   the text as given, for error messages
 */
public record Size(long number, long unit, String text)
{
    /** The parse error's text; {@link Values} puts the option's name before it. */
    static final String FIX = "give a whole number, or bytes with K, M, G, KiB, MiB or GiB (4M)";

    public Size
    {
        if (number < 0 || unit < 1)
        {
            throw new IllegalArgumentException("size must be non-negative: number=" + number + " unit=" + unit);
        }
    }

    /**
     * @throws IllegalArgumentException naming {@code text} if it is not a size
     */
    public static Size parse(final String text)
    {
        final String upper = text.trim().toUpperCase(Locale.ROOT);
        String digits = upper;
        for (final String tail : new String[] {"IB", "B"})
        {
            if (digits.length() > tail.length() && digits.endsWith(tail)
                && "KMG".indexOf(digits.charAt(digits.length() - tail.length() - 1)) >= 0)
            {
                digits = digits.substring(0, digits.length() - tail.length());
                break;
            }
        }
        long unit = 1;
        if (!digits.isEmpty())
        {
            switch (digits.charAt(digits.length() - 1))
            {
                case 'K' -> unit = 1L << 10;
                case 'M' -> unit = 1L << 20;
                case 'G' -> unit = 1L << 30;
                default -> unit = 1;
            }
        }
        if (unit != 1)
        {
            digits = digits.substring(0, digits.length() - 1);
        }
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            throw new IllegalArgumentException("'" + text + "' is not a size; " + FIX);
        }
        try
        {
            final long number = Long.parseLong(digits);
            Math.multiplyExact(number, unit);
            return new Size(number, unit, text);
        }
        catch (final NumberFormatException | ArithmeticException ex)
        {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
    }

    /** The size in bytes: a plain number counts bytes. */
    public long bytes()
    {
        return number * unit;
    }

    /**
     * The size in pages of {@code pageSize} bytes: a plain number counts pages.
     *
     * @throws CliException naming {@code option} if the bytes are not a whole number of pages
     */
    public long pages(final int pageSize, final String option)
    {
        if (unit == 1)
        {
            return number;
        }
        if (bytes() % pageSize != 0)
        {
            throw new CliException(option + ": '" + text + "' is not a whole number of " + pageSize
                + "-byte pages; give a multiple of the page size");
        }
        return bytes() / pageSize;
    }

    /** {@code bytes} as an option takes it back: with the largest of G, M, K that divides it (4M), else plain. */
    public static String formatBytes(final long bytes)
    {
        for (final long unit : new long[] {1L << 30, 1L << 20, 1L << 10})
        {
            if (bytes != 0 && bytes % unit == 0)
            {
                return bytes / unit + (unit == 1L << 30 ? "G" : unit == 1L << 20 ? "M" : "K");
            }
        }
        return Long.toString(bytes);
    }
}
