package io.faultline.sweep;

import io.faultline.tools.CommandProvider;
import io.faultline.tools.Main;

import java.io.PrintStream;

/** Adds {@code sweep} to {@code faultline} when this module's jar is on the class path (META-INF/services). */
public final class SweepCommandProvider implements CommandProvider
{
    @Override
    public String name()
    {
        return "sweep";
    }

    @Override
    public String summary()
    {
        return Main.SWEEP_SUMMARY;
    }

    @Override
    public Object command(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        return new SweepCommand(out, err, terminal);
    }
}
