package io.faultline.sim.report;

import io.faultline.sim.mrc.ReuseHistograms;

/**
 * One scope's reuse histograms and its name: "all" for the whole trace, or a thread id (drawn and
 * printed as a thread). The unit of {@link ReuseTable} and of the reuse chart and CSV.
 */
public record ReuseScope(String name, ReuseHistograms histograms)
{
}
