package io.faultline.sweep.grid;

import java.io.Serializable;

/**
 * One point of a sweep's grid, one Spark task: a trace replayed through one policy at one size.
 *
 * @param trace  index of the trace in the sweep's list of staged traces
 * @param policy the policy as written ({@code lru}, {@code 2q:kin=0.25}); tasks parse it again
 * @param size   cache size in pages
 * @param rate   MINISIM's sampling rate, or 0 for a full replay
 */
public record Cell(int trace, String policy, int size, double rate) implements Serializable
{
}
