package io.faultline.damon.schemes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * Memory pressure stall information (Documentation/accounting/psi.rst): the cumulative
 * microseconds in which some task stalled on memory, the {@code total=} of the {@code some}
 * line of /proc/pressure/memory or of a cgroup's memory.pressure. The kernel's
 * some_mem_psi_us goal reads the same counter (psi_system.total, in ns, / 1000). A file that
 * cannot be read counts 0, as the kernel does with PSI disabled.
 */
public final class PressureStall implements LongSupplier
{
    public static final Path SYSTEM = Path.of("/proc/pressure/memory");

    private final Path file;

    public PressureStall(final Path file)
    {
        this.file = file;
    }

    public Path file()
    {
        return file;
    }

    /** The {@code some} line's total, or -1 if {@code text} has none. */
    public static long someTotalUs(final String text)
    {
        for (final String line : text.split("\n"))
        {
            if (!line.startsWith("some "))
            {
                continue;
            }
            for (final String field : line.split("\\s+"))
            {
                if (field.startsWith("total="))
                {
                    try
                    {
                        return Long.parseLong(field.substring("total=".length()));
                    }
                    catch (final NumberFormatException ex)
                    {
                        return -1;
                    }
                }
            }
        }
        return -1;
    }

    @Override
    public long getAsLong()
    {
        try
        {
            return Math.max(0, someTotalUs(new String(Files.readAllBytes(file), StandardCharsets.US_ASCII)));
        }
        catch (final IOException ex)
        {
            return 0;
        }
    }
}
