package io.faultline.damon.schemes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * The {@code free_mem_rate} watermark metric: free memory per thousand of total memory, as
 * damos_get_wmark_metric_value() of mm/damon/core.c computes it (NR_FREE_PAGES * 1000 /
 * totalram_pages()), from /proc/meminfo's MemFree and MemTotal, which report the same two
 * counters. It is this machine's metric whatever the operations set monitors; tests give
 * watermarks their own source instead.
 */
public final class FreeMemRate implements LongSupplier
{
    public static final Path MEMINFO = Path.of("/proc/meminfo");

    private final Path file;

    public FreeMemRate(final Path file)
    {
        this.file = file;
    }

    /** Per thousand from a meminfo text, or -1 if MemTotal or MemFree is missing. */
    public static long perThousand(final String meminfo)
    {
        long total = -1;
        long free = -1;
        for (final String line : meminfo.split("\n"))
        {
            final String[] f = line.trim().split("\\s+");
            if (f.length < 2)
            {
                continue;
            }
            if (f[0].equals("MemTotal:"))
            {
                total = Long.parseLong(f[1]);
            }
            else if (f[0].equals("MemFree:"))
            {
                free = Long.parseLong(f[1]);
            }
        }
        return total <= 0 || free < 0 ? -1 : free * 1000 / total;
    }

    /** @throws IllegalStateException if the file cannot be read or lacks the two counters */
    @Override
    public long getAsLong()
    {
        try
        {
            final long value = perThousand(new String(Files.readAllBytes(file), StandardCharsets.US_ASCII));
            if (value < 0)
            {
                throw new IllegalStateException(file + " has no MemTotal or MemFree line");
            }
            return value;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read " + file + ": " + ex.getMessage(), ex);
        }
    }
}
