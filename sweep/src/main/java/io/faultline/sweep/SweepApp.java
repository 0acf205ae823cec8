package io.faultline.sweep;

import io.faultline.tools.Main;

/**
 * The application jar's main class, for spark-submit: {@code spark-submit --master URL
 * faultline-sweep.jar --policies ... --sizes ... TRACE...} runs {@code faultline sweep} with
 * the same arguments, on the master spark-submit gives.
 */
public final class SweepApp
{
    private SweepApp()
    {
    }

    public static void main(final String[] args)
    {
        final String[] sweep = new String[args.length + 1];
        sweep[0] = "sweep";
        System.arraycopy(args, 0, sweep, 1, args.length);
        Main.main(sweep);
    }
}
