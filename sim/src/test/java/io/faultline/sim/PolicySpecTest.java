package io.faultline.sim;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PolicySpecTest
{
    @Test
    void registryListsEveryPolicyInOrder()
    {
        assertEquals(List.of("lru", "fifo", "clock", "segq", "2q", "arc", "car", "lirs", "clock-pro", "sieve", "s3fifo",
            "opt", "evms"), Policies.names());
    }

    @Test
    void parsesNameLabelAndParameters()
    {
        final PolicySpec spec = PolicySpec.parse("2Q:kin=0.25:KOUT=0.5");
        assertEquals("2q", spec.name());
        assertEquals("2Q:kin=0.25:KOUT=0.5", spec.label());
        assertEquals(Map.of("kin", "0.25", "kout", "0.5"), spec.params());
        assertEquals(0.25, spec.doubleParam("kin", 9));
        assertEquals(7.0, PolicySpec.parse("lirs").doubleParam("hir", 7.0));
        assertEquals("clock", PolicySpec.parse("segq:lead=0.1:trail=CLOCK").stringParam("trail", "lru"));
        assertEquals("lru", PolicySpec.parse("lru").label());
    }

    @Test
    void unknownPolicyListsTheKnownOnes()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("x"));
        assertEquals("unknown policy 'x'; known policies: lru, fifo, clock, segq, 2q, arc, car, lirs, clock-pro, sieve, " +
            "s3fifo, opt, evms", ex.getMessage());
    }

    @Test
    void unknownParameterNamesItAndTheKnownOnes()
    {
        assertEquals("unknown parameter 'kni' in '2q:kni=0.2'; known parameters of '2q': kin, kout",
            assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("2q:kni=0.2")).getMessage());
        assertEquals("unknown parameter 'hir' in 'lru:hir=1'; policy 'lru' takes no parameters",
            assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("lru:hir=1")).getMessage());
    }

    @Test
    void malformedParametersAreRejected()
    {
        assertEquals("malformed parameter 'hir' in 'lirs:hir': expected param=value; known parameters of 'lirs': hir, stack",
            assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("lirs:hir")).getMessage());
        assertEquals("parameter 'hir' of 'lirs' must be a number in (0, 1): hir=abc; known parameters of 'lirs': hir, stack",
            assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("lirs:hir=abc")).getMessage());
        assertEquals("parameter 'kin' of '2q' must be a number in (0, 1): kin=1.5; known parameters of '2q': kin, kout",
            assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("2q:kin=1.5")).getMessage());
        assertEquals("parameter 'trail' of 'segq' must be one of lru, fifo, clock: trail=lfu; known parameters of 'segq': " +
            "lead, trail", assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("segq:trail=lfu")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("lirs:=3"));
        assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("lirs:hir="));
        assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse("lirs:hir=0.1:hir=0.2"));
        assertThrows(IllegalArgumentException.class, () -> PolicySpec.parse(""));
    }

    @Test
    void capacityMustBePositive()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> Policies.create(PolicySpec.parse("lru"), 0, new long[0]));
        assertEquals("capacity must be >= 1: capacity=0", ex.getMessage());
    }
}
