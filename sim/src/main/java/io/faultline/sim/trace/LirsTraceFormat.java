package io.faultline.sim.trace;

/**
 * The LIRS traces of Jiang and Zhang (SIGMETRICS 2002), as bundled with Caffeine's simulator:
 * one block number per line; a line {@code *} marks a checkpoint and is skipped.
 */
final class LirsTraceFormat extends LineTraceFormat
{
    @Override
    public String name()
    {
        return "lirs";
    }

    @Override
    public String summary()
    {
        return "LIRS block traces: one block number per line, '*' lines skipped; key = block";
    }

    @Override
    void parseLine(final String line, final TraceOptions options, final KeyTrace out)
    {
        final String text = line.strip();
        if (text.equals("*"))
        {
            return;
        }
        out.add(parseDecimal(text, "a block number"));
    }
}
