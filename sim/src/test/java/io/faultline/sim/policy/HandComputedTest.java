package io.faultline.sim.policy;

import io.faultline.sim.Patterns;
import io.faultline.sim.policy.adaptive.Arc;
import io.faultline.sim.policy.adaptive.Car;
import io.faultline.sim.policy.irr.ClockPro;
import io.faultline.sim.policy.irr.Lirs;
import io.faultline.sim.policy.linked.Clock;
import io.faultline.sim.policy.linked.Fifo;
import io.faultline.sim.policy.linked.Lru;
import io.faultline.sim.policy.linked.S3Fifo;
import io.faultline.sim.policy.linked.SegQ;
import io.faultline.sim.policy.linked.Sieve;
import io.faultline.sim.policy.linked.TwoQueue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Short sequences whose hit/miss strings (H/M per reference) were worked out by hand from each
 * paper's rules, as written in the policy's Javadoc; the comments give the state after the
 * interesting steps. Lists are written newest first unless said otherwise.
 */
class HandComputedTest
{
    private static final long[] BELADY = {1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5};

    @Test
    void fifoShowsBeladysAnomaly()
    {
        // 3 frames: 4 replaces 1, 1 replaces 2, 2 replaces 3, 5 replaces 4, 1 2 hit, 3 replaces 1,
        // 4 replaces 2, 5 hits: 9 misses. 4 frames: 1 2 hit, then 5 1 2 3 4 5 each replace the
        // oldest: 10 misses. More frames, more faults.
        assertEquals("MMMMMMMHHMMH", Patterns.of(new Fifo(3), BELADY));
        assertEquals("MMMMHHMMMMMM", Patterns.of(new Fifo(4), BELADY));
    }

    @Test
    void lruIsAStackAlgorithm()
    {
        // 3 frames: 10 misses; 4 frames: 5 evicts 3 (order 3 4 1 2 after the hits), 3 evicts 4,
        // 4 evicts 5, 5 evicts 1: 8 misses. No anomaly.
        assertEquals("MMMMMMMHHMMM", Patterns.of(new Lru(3), BELADY));
        assertEquals("MMMMHHMHHMMM", Patterns.of(new Lru(4), BELADY));
    }

    @Test
    void clockGivesSecondChances()
    {
        // Frames f0..f2 hold 1 2 3, hand at f0. 1 hits: bit(f0) set. 4: f0 set -> cleared, f1
        // (2) clear -> 4 replaces 2, hand to f2. 1 hits again. 5: f2 (3) clear -> replaced, hand
        // to f0. 2: f0 (1) set -> cleared, f1 (4) clear -> replaced. 1 hits.
        assertEquals("MMMHMHMMH", Patterns.of(new Clock(3), 1, 2, 3, 1, 4, 1, 5, 2, 1));
        // New pages enter with the bit clear: after 1 2 3 and a hit on 2, 4 replaces 1 at once
        // (f0 clear), and 5 passes over 2 (clearing it) to replace 3, so 2 still hits. Were new
        // pages to enter with the bit set, 5 would have replaced 2.
        assertEquals("MMMHMMH", Patterns.of(new Clock(3), 1, 2, 3, 2, 4, 5, 2));
    }

    @Test
    void sieveKeepsSurvivorsInPlace()
    {
        // Queue oldest..newest 1 2 3. 1 hits (visited). 4: hand at 1 (visited -> cleared),
        // moves to 2 -> evicted; hand rests on 3. 2: 3 evicted, hand on 4. 5: 4 evicted, hand on
        // 2. 1 hits. 3: 2 evicted. 1 is never moved and still hits.
        assertEquals("MMMHMMMHMH", Patterns.of(new Sieve(3), 1, 2, 3, 1, 4, 2, 5, 1, 3, 1));
    }

    @Test
    void twoQueueFullVersion()
    {
        // Capacity 4: Kin = 1, Kout = 2. 1..4 fill A1in. 5: |A1in| = 4 > Kin, 1 -> A1out.
        // 1 (ghost, miss): 2 -> A1out, 1 -> Am. 6: 3 -> A1out [3 2]. 1 hits in Am. 2 (ghost): 4 ->
        // A1out [4 3], Am [2 1]. 7: 5 -> A1out, 3 dropped. 5 (ghost): 6 -> A1out [6 4], Am
        // [5 2 1], A1in [7]. 8: |A1in| = 1 = Kin, so Am's LRU page 1 is evicted, no ghost. 1 (new
        // again): 7 -> A1out [7 6], 4 dropped; A1in [1 8]. 2 hits in Am, 8 hits in A1in.
        assertEquals("MMMMMMMHMMMMMHH",
            Patterns.of(new TwoQueue(4, 0.25, 0.5), 1, 2, 3, 4, 5, 1, 6, 1, 2, 7, 5, 8, 1, 2, 8));
    }

    @Test
    void arcAdaptsItsTarget()
    {
        // Capacity 4. 1 2 1 2: T2 [2 1]. 3 4: T1 [4 3]. 5, 6: REPLACE moves 3, 4 to B1 (|T1| > p = 0).
        // 3 (B1 hit, |B1| >= |B2|): p = 1; REPLACE: |T1| = 2 > 1, 5 -> B1. 4 (B1 hit): p = 2;
        // REPLACE: |T1| = 1 <= p, T2's LRU 1 -> B2. 1 (B2 hit, |B2| >= |B1|): p = 1; |T1| = p and
        // x in B2, so 6 -> B1. 5 (B1): p = 2, 2 -> B2. 2 (B2): p = 1, 3 -> B2. 7: 4 -> B2. 8: 1 -> B2.
        // 9: directory full (2c), B2 drops 3; |T1| = 2 > p, 7 -> B1. 6 (B1, |B1| = |B2| = 2): p = 2,
        // 5 -> B2. 7 (B1, |B1| = 1 < |B2| = 3): p = min(2 + 3/1, 4) = 4, 2 -> B2. 1 (B2): p = 3.
        final long[] trace = {1, 2, 1, 2, 3, 4, 5, 6, 3, 4, 1, 5, 2, 7, 8, 9, 6, 7, 1};
        final int[] targets = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1, 2, 1, 1, 1, 1, 2, 4, 3};
        final Arc arc = new Arc(4);
        final StringBuilder pattern = new StringBuilder();
        for (int i = 0; i < trace.length; i++)
        {
            pattern.append(arc.record(trace[i]) ? 'H' : 'M');
            assertEquals(targets[i], arc.target(), "p after reference " + i);
        }
        arc.finished();
        assertEquals("MMHHMMMMMMMMMMMMMMM", pattern.toString());
        assertArrayEquals(new int[] {2, 2, 0, 4}, arc.sizes(), "|T1| |T2| |B1| |B2|");
    }

    @Test
    void carAdaptsItsTarget()
    {
        // Capacity 3; clocks listed from the hand. 1 2 3 fill T1; 1 hits (bit). 4: T1's hand finds
        // 1 set -> cleared, to T2; then 2 clear -> B1; |T1| + |B1| = 3 = c so B1 drops 2 again;
        // T1 [3 4]. 5: 3 -> B1. 3 (B1 hit): 4 -> B1, p = 0 + max(1, 0/2) = 1, 3 -> T2 [1 3].
        // 4 (B1): 5 -> B1, p = 2, T2 [1 3 4]. 1 hits. 6: |T1| = 0 < p, T2's hand: 1 set -> cleared,
        // to the tail; 3 clear -> B2. 3 (B2 hit): |T1| = 1 < 2, T2's hand: 4 -> B2; p = 2 - max(1,
        // 1/2) = 1. 5 (B1 hit): |T1| = 1 >= 1, 6 -> B1; p = 1 + max(1, 1/2) = 2.
        final long[] trace = {1, 2, 3, 1, 4, 5, 3, 4, 1, 6, 3, 5};
        final int[] targets = {0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 1, 2};
        final Car car = new Car(3);
        final StringBuilder pattern = new StringBuilder();
        for (int i = 0; i < trace.length; i++)
        {
            pattern.append(car.record(trace[i]) ? 'H' : 'M');
            assertEquals(targets[i], car.target(), "p after reference " + i);
        }
        car.finished();
        assertEquals("MMMHMMMMHMMM", pattern.toString());
    }

    @Test
    void lirsFollowsThePapersRules()
    {
        // In the manner of the paper's Figure 3: capacity 3 with Llirs = 2, Lhirs = 1 (hir = 0.34),
        // blocks A..E. The trace is ours; the expected S (top first), Q (front first) and statuses
        // are derived by hand from section 3.3.
        final long a = 'A', b = 'B', c = 'C', d = 'D', e = 'E';
        final Lirs lirs = new Lirs(3, 0.34, 2.0);
        // A, D fill the LIR set; A hits. B: resident HIR. C: evicts B (stays in S, non-resident).
        // B: non-resident in S -> LIR; evicts C (non-resident); D, the bottom LIR block, -> HIR in Q;
        // pruning removes D from S.
        assertEquals("MMHMMM", Patterns.of(lirs, a, d, a, b, c, b));
        assertEquals(List.of(b, c, a), lirs.stack());
        assertEquals(List.of(d), lirs.queue());
        assertEquals("LIR", lirs.state(a));
        assertEquals("LIR", lirs.state(b));
        assertEquals("non-resident", lirs.state(c));
        assertEquals("HIR", lirs.state(d));
        // E: evicts D, which is not in S, so D is forgotten. D: evicts E (kept in S). A: an LIR hit at
        // the bottom of S; pruning removes the non-resident C.
        assertEquals("MMH", Patterns.of(lirs, e, d, a));
        assertEquals(List.of(a, d, e, b), lirs.stack());
        assertEquals(List.of(d), lirs.queue());
        assertEquals("non-resident", lirs.state(e));
        assertNull(lirs.state(c));
        // E: non-resident in S, a miss that evicts D and makes E LIR; B, now the bottom LIR block,
        // becomes resident HIR; pruning removes D.
        assertEquals("M", Patterns.of(lirs, e));
        assertEquals(List.of(e, a), lirs.stack());
        assertEquals(List.of(b), lirs.queue());
        assertEquals("LIR", lirs.state(e));
        assertEquals("HIR", lirs.state(b));
        assertNull(lirs.state(d));
        // B hits as resident HIR not in S: stays HIR. B hits again, now in S: becomes LIR, and A,
        // the bottom LIR block, becomes HIR and goes to Q.
        assertEquals("HH", Patterns.of(lirs, b, b));
        assertEquals(List.of(b, e), lirs.stack());
        assertEquals(List.of(a), lirs.queue());
        assertEquals("HIR", lirs.state(a));
        // The victim is the front of Q: C's miss evicts A, which is not in S, so A is forgotten.
        assertEquals("M", Patterns.of(lirs, c));
        assertNull(lirs.state(a));
        assertEquals(List.of(c, b, e), lirs.stack());
        assertEquals(List.of(c), lirs.queue());
    }

    @Test
    void s3fifoFiltersOneHitWonders()
    {
        // Capacity 4, small = 0.5 (S's share 2, M's 2), ghost = 0.5 (2 ids); lists newest first.
        // 1 2 3, then 1 hits twice (freq 2). 4: S [4 3 2 1]. 5: |S| >= 2: tail 1 has freq > 1 -> M;
        // 2 -> G. 2 (ghost): 3 -> G, 2 -> M [2 1]. 3 (ghost): 4 -> G, 3 -> M [3 2 1]; S [5].
        // 6: |S| < 2 so M's tail 1 (freq 0) is evicted. 1 (new): 5 -> G [5 4]; S [1 6]. 2 hits (freq
        // 1). 5 (ghost): 6 -> G [6 4]; M [5 3 2]. 7: M's tail 2 has freq 1 -> decremented, reinserted;
        // 3 evicted. 3 (new): 1 -> G [1 6], 4 dropped. 2 hits. 1 (ghost): 7 -> G, 1 -> M. 1 hits.
        assertEquals("MMMHHMMMMMMHMMMHMH",
            Patterns.of(new S3Fifo(4, 0.5, 0.5), 1, 2, 3, 1, 1, 4, 5, 2, 3, 6, 1, 2, 5, 7, 3, 2, 1, 1));
    }

    @Test
    void segqTrailingSegmentChoices()
    {
        // Capacity 4, lead = 0.5: a 2-page FIFO leading segment and a 2-page trailing segment.
        // 1 2, 1 hits in the lead (referenced, last reference at t3), 3 pushes 1 out, 4 pushes 2 out.
        // 5: the trailing segment must give a victim. lru: 2 (last referenced t2, before 1's t3);
        // fifo: 1 (demoted first); clock: 1 has its bit set -> second chance, so 2.
        // 1 is then a trailing hit for lru and clock (back to the lead) and a miss for fifo.
        final long[] trace = {1, 2, 1, 3, 4, 5, 1, 2};
        assertEquals("MMHMMMHM", Patterns.of(new SegQ(4, 0.5, SegQ.Trail.LRU), trace));
        assertEquals("MMHMMMMM", Patterns.of(new SegQ(4, 0.5, SegQ.Trail.FIFO), trace));
        assertEquals("MMHMMMHM", Patterns.of(new SegQ(4, 0.5, SegQ.Trail.CLOCK), trace));
        // fifo keeps 2 instead, which hits.
        assertEquals("MMHMMMH", Patterns.of(new SegQ(4, 0.5, SegQ.Trail.FIFO), 1, 2, 1, 3, 4, 5, 2));
    }

    @Test
    void clockProHandsAndColdTarget()
    {
        // Capacity 3: mc starts at 1, so 1 2 enter hot and 3 cold in test. 4: HAND_cold evicts 3 (kept
        // non-resident, in test); 4 cold in test. 3: a fault in its test period: mc = 2, HAND_cold
        // evicts 4 (non-resident), 3 enters hot, and HAND_hot demotes 1 and 2 (bits clear) until
        // hot <= m - mc = 1. 1 2 hit (bits set). 5: HAND_cold finds 1 and 2 referenced outside their
        // test: bits cleared, test periods started, moved to the head; then 1 (clear, in test) is
        // evicted to non-resident. 4: a test-period fault, mc stays at its maximum 2; 2 evicted to
        // non-resident; 4 hot; HAND_hot demotes 3. 1: a test-period fault; 5 evicted to non-resident;
        // 1 hot; HAND_hot ends the test periods of non-resident 2 and 5 (mc 2 -> 1), demotes 4.
        // 2 and 3 then miss: 2 was forgotten and 3, cold outside its test, was evicted for 2.
        final long[] trace = {1, 2, 3, 4, 3, 1, 2, 5, 4, 1, 2, 3};
        final int[] targets = {1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1};
        final ClockPro clockPro = new ClockPro(3);
        final StringBuilder pattern = new StringBuilder();
        for (int i = 0; i < trace.length; i++)
        {
            pattern.append(clockPro.record(trace[i]) ? 'H' : 'M');
            assertEquals(targets[i], clockPro.coldTarget(), "mc after reference " + i);
        }
        clockPro.finished();
        assertEquals("MMMMMHHMMMMM", pattern.toString());
    }
}
