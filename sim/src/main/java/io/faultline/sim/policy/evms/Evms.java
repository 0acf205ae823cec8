package io.faultline.sim.policy.evms;

import io.faultline.sim.Policy;

/**
 * The simulator's {@code evms} policy: {@link EvmsModel}, the one model of kVMTrace's EVMS that
 * also predicts the agent's traces, replayed on a key sequence. A miss is a reference record
 * (the page was outside the set); soft faults and plain hits are hits. Keys carry no kind, so
 * every reference is a read. Parameters: {@code lead} (pages of the leading segment, default
 * 8) and {@code trail} ({@code clock} default, {@code fifo}, or {@code none}: one FIFO segment).
 */
public final class Evms implements Policy
{
    public static final int DEFAULT_LEAD = 8;

    private final EvmsModel model;

    public Evms(final int capacity, final int lead, final EvmsModel.Trail trail)
    {
        // one page leaves no room for a trailing segment: one FIFO page
        final EvmsModel.Trail segments = capacity < 2 ? EvmsModel.Trail.NONE : trail;
        model = new EvmsModel(capacity, segments == EvmsModel.Trail.NONE ? capacity : Math.min(lead, capacity - 1),
            segments, (page, tid, tag, deleted) -> { });
    }

    @Override
    public boolean record(final long key)
    {
        return model.reference(key, 0, false) != EvmsModel.Outcome.RECORD;
    }

    @Override
    public void finished()
    {
        model.check();
    }
}
