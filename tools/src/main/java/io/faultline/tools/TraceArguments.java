package io.faultline.tools;

import java.nio.file.Path;
import java.util.List;

import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceReader;

/** Opening a trace named on the command line, with the reader's errors as one-line CLI errors. */
final class TraceArguments
{
    private TraceArguments()
    {
    }

    static TraceReader open(final String path, final boolean skipCorrupt)
    {
        try
        {
            return TraceReader.open(Path.of(path), skipCorrupt);
        }
        catch (final TraceFormatException ex)
        {
            // a monitoring record where a trace belongs is the user's mistake; a trace that
            // cannot be read, the file system's; one that does not parse, the data's
            throw CliException.of(ex);
        }
    }

    static String single(final List<String> operands, final String usage)
    {
        return single(operands, "trace directory", usage);
    }

    /** As {@link #single(List, String)}, for an operand the errors call {@code what}. */
    static String single(final List<String> operands, final String what, final String usage)
    {
        if (operands.isEmpty())
        {
            throw new CliException("missing " + what + "; " + usage);
        }
        if (operands.size() > 1)
        {
            throw new CliException("expected one " + what + ", got " + operands.size() + ": " + operands + "; " + usage);
        }
        return operands.get(0);
    }
}
