package io.faultline.tools;

import java.nio.file.Path;
import java.util.List;

import io.faultline.damon.record.MonitorRecordReader;
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
            // a monitoring record where a trace belongs is the user's mistake (2, as simulate
            // says it); a trace that cannot be read is the data's (1)
            throw new CliException(ex.getMessage(), MonitorRecordReader.isRecord(Path.of(path)) ? 2 : 1);
        }
    }

    static String single(final List<String> operands, final String usage)
    {
        if (operands.isEmpty())
        {
            throw new CliException("missing trace directory; " + usage);
        }
        if (operands.size() > 1)
        {
            throw new CliException("expected one trace directory, got " + operands.size() + ": " + operands + "; " + usage);
        }
        return operands.get(0);
    }
}
