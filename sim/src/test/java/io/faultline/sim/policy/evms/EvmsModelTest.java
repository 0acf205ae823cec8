package io.faultline.sim.policy.evms;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static io.faultline.sim.policy.evms.EvmsModel.Outcome.RECORD;
import static io.faultline.sim.policy.evms.EvmsModel.Outcome.SOFT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The EVMS model on short sequences worked out by hand from FORMAT.md's rules ("EVMS"). */
class EvmsModelTest
{
    private static List<String> run(final EvmsModel.Trail trail, final List<EvmsModel.Outcome> outcomes)
    {
        final List<String> evicted = new ArrayList<>();
        final EvmsModel model = new EvmsModel(4, 2, trail, (page, tid, tag, deleted) -> evicted.add("" + tag + page));
        final long[] pages = {1, 2, 3, 1, 4, 5, 1, 6, 7};
        final boolean[] writes = {false, false, false, false, false, false, true, false, false};
        for (int i = 0; i < pages.length; i++)
        {
            outcomes.add(model.reference(pages[i], 9, writes[i]));
        }
        model.check();
        model.clear();
        return evicted;
    }

    @Test
    void clockTrailGivesReferencedPagesASecondChance()
    {
        // 1 enters the trail at 3, its re-reference is soft; the hand passes over it twice
        // (at 5 and 6, after its dirtying re-reference), and evicts it at 7 as W
        final List<EvmsModel.Outcome> outcomes = new ArrayList<>();
        assertEquals(List.of("r2", "r3", "W1", "r4", "r5", "r6", "r7"), run(EvmsModel.Trail.CLOCK, outcomes));
        assertEquals(List.of(RECORD, RECORD, RECORD, SOFT, RECORD, RECORD, SOFT, RECORD, RECORD), outcomes);
    }

    @Test
    void fifoTrailEvictsInEntryOrderWhateverWasReferenced()
    {
        // 1 is re-referenced in the trail (soft, R) but leaves first at 5; its write at 7 brings it back
        final List<EvmsModel.Outcome> outcomes = new ArrayList<>();
        assertEquals(List.of("R1", "r2", "r3", "r4", "r5", "w1", "r6", "r7"), run(EvmsModel.Trail.FIFO, outcomes));
        assertEquals(List.of(RECORD, RECORD, RECORD, SOFT, RECORD, RECORD, RECORD, RECORD, RECORD), outcomes);
    }

    @Test
    void deletedPagesLeaveInTheirTurnWithTheirFlags()
    {
        final List<String> evicted = new ArrayList<>();
        final EvmsModel model = new EvmsModel(3, 3, EvmsModel.Trail.NONE, (page, tid, tag, deleted) ->
            evicted.add("" + tag + page + (deleted ? "d" : "")));
        model.reference(1, 9, true);
        model.reference(2, 9, false);
        model.delete(1, 2);
        assertEquals(RECORD, model.reference(1, 9, false)); // a new page at the same address
        model.reference(3, 9, false);
        assertEquals(List.of("w1d"), evicted);
        model.clear();
        assertEquals(List.of("w1d", "r2", "r1", "r3"), evicted);
    }
}
