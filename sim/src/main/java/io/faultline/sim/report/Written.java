package io.faultline.sim.report;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The line each writer prints on stderr: what it wrote, how big, how long it took. */
public final class Written
{
    private Written()
    {
    }

    public static void report(final PrintStream err, final String what, final Path file, final long startNanos)
    {
        long bytes = -1;
        try
        {
            bytes = Files.size(file);
        }
        catch (final java.io.IOException ignored)
        {
            // The size is only informative.
        }
        err.printf(Locale.ROOT, "Wrote %s to %s (%s) in %s%n", what, file, bytes < 0 ? "?" : humanBytes(bytes),
            seconds(System.nanoTime() - startNanos));
    }

    public static String seconds(final long nanos)
    {
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }

    /** Bytes for people: 512 B, 12.0 KiB, 3.4 MiB, 1.2 GiB. */
    public static String humanBytes(final long bytes)
    {
        if (bytes < 1024)
        {
            return bytes + " B";
        }
        if (bytes < 1024 * 1024)
        {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        }
        if (bytes < 1L << 30)
        {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
        }
        return String.format(Locale.ROOT, "%.1f GiB", bytes / (double)(1L << 30));
    }
}
