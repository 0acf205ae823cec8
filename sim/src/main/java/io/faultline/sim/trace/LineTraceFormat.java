package io.faultline.sim.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A text trace with one reference per line. Lines that are empty or only white space are
 * skipped in every text format. A line the format cannot parse ends the read with a
 * {@link TraceException} naming the file, the 1-based line number and the text.
 */
abstract class LineTraceFormat implements TraceFormat
{
    private static final int BUFFER_SIZE = 1 << 16;

    /**
     * Parses one non-blank line.
     *
     * @throws IllegalArgumentException with a short description of what is wrong
     */
    abstract void parseLine(String line, TraceOptions options, KeyTrace out);

    @Override
    public final void read(final Path path, final TraceOptions options, final KeyTrace out) throws IOException
    {
        // ISO-8859-1 maps every byte to a char, so a binary file fed by mistake is reported as a
        // malformed line rather than as a decoder exception.
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(Compression.open(path), StandardCharsets.ISO_8859_1), BUFFER_SIZE))
        {
            long lineNumber = 0;
            String line;
            while ((line = reader.readLine()) != null)
            {
                lineNumber++;
                if (line.isBlank())
                {
                    continue;
                }
                try
                {
                    parseLine(line, options, out);
                }
                catch (final IllegalArgumentException ex)
                {
                    throw TraceException.malformedLine(path.toString(), lineNumber, ex.getMessage(), line);
                }
            }
        }
    }

    /** A decimal unsigned 64-bit number. */
    static long parseDecimal(final String text, final String what)
    {
        try
        {
            return Long.parseUnsignedLong(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("expected " + what + " as an unsigned decimal number");
        }
    }

    /** A hexadecimal unsigned 64-bit number, with or without a leading 0x. */
    static long parseHex(final String text, final String what)
    {
        final String digits = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
        try
        {
            return Long.parseUnsignedLong(digits, 16);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("expected " + what + " as a hexadecimal number");
        }
    }

    /** The page holding {@code address}, addresses taken as unsigned. */
    static long page(final long address, final int pageSize)
    {
        return Long.divideUnsigned(address, pageSize);
    }
}
