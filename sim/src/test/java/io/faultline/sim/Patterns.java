package io.faultline.sim;

/** Hit/miss strings ("H"/"M" per reference) for hand-computed expectations. */
public final class Patterns
{
    private Patterns()
    {
    }

    public static String of(final Policy policy, final long... trace)
    {
        final StringBuilder pattern = new StringBuilder(trace.length);
        for (final long key : trace)
        {
            pattern.append(policy.record(key) ? 'H' : 'M');
        }
        policy.finished();
        return pattern.toString();
    }
}
