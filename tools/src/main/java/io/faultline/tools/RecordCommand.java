package io.faultline.tools;

import java.io.PrintStream;
import java.util.List;

import io.faultline.tracer.RecordException;
import io.faultline.tracer.RecordOptions;
import io.faultline.tracer.Recorder;

/** {@code faultline record}: trace a program into a trace directory. */
public final class RecordCommand implements Command
{
    @Override
    public String name()
    {
        return "record";
    }

    @Override
    public String summary()
    {
        return "run a program and record its page reference trace";
    }

    @Override
    public int run(final List<String> args, final PrintStream out, final PrintStream err) throws Exception
    {
        try
        {
            final RecordOptions options = RecordOptions.parse(args);
            if (options == null)
            {
                out.println(RecordOptions.USAGE);
                return 0;
            }
            out.flush();
            return new Recorder(options, err).record();
        }
        catch (final RecordException ex)
        {
            throw new CliException(ex.getMessage());
        }
    }
}
