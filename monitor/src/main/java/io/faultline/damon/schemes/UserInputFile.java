package io.faultline.damon.schemes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * The {@code user_input} goal metric as a file the user rewrites while monitoring runs (the
 * kernel's DAMON sysfs interface has the user write current_value and commit it): every goal
 * check reads the whole number in it. A file that is missing, empty or not a number (being
 * rewritten, say) keeps the last value read; before any value was read, that is 0.
 */
public final class UserInputFile implements LongSupplier
{
    private final Path file;
    private long last;

    public UserInputFile(final Path file)
    {
        this.file = file;
    }

    public Path file()
    {
        return file;
    }

    @Override
    public long getAsLong()
    {
        try
        {
            last = Long.parseLong(new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim());
        }
        catch (final IOException | NumberFormatException ex)
        {
            // Keep the last value: a reader must not see a half-written file as a new input.
        }
        return last;
    }
}
