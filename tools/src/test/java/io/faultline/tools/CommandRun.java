package io.faultline.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** One run of {@link Main#run} with its standard output and error captured. */
record CommandRun(int status, String out, String err)
{
    static CommandRun of(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CommandRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    String[] errLines()
    {
        return err.split("\\R");
    }

    String lastErrLine()
    {
        final String[] lines = errLines();
        return lines[lines.length - 1];
    }

    @Override
    public String toString()
    {
        return "status " + status + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
}
