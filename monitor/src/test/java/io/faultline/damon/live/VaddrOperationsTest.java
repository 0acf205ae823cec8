package io.faultline.damon.live;

import java.util.List;

import io.faultline.damon.AddressRange;
import io.faultline.damon.Region;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link VaddrOperations#covers}: whether the regions leave out any traced memory. */
class VaddrOperationsTest
{
    private static List<Region> regions(final long... bounds)
    {
        final java.util.ArrayList<Region> out = new java.util.ArrayList<>();
        for (int i = 0; i < bounds.length; i += 2)
        {
            out.add(new Region(bounds[i], bounds[i + 1]));
        }
        return out;
    }

    private static List<AddressRange> ranges(final long... bounds)
    {
        final java.util.ArrayList<AddressRange> out = new java.util.ArrayList<>();
        for (int i = 0; i < bounds.length; i += 2)
        {
            out.add(new AddressRange(bounds[i], bounds[i + 1]));
        }
        return out;
    }

    @Test
    void rangesInsideAdjacentRegionsAreCovered()
    {
        final List<Region> r = regions(0x1000, 0x3000, 0x3000, 0x8000, 0x10000, 0x20000);
        assertTrue(VaddrOperations.covers(r, ranges()));
        assertTrue(VaddrOperations.covers(r, ranges(0x1000, 0x8000, 0x10000, 0x11000, 0x1f000, 0x20000)));
        assertTrue(VaddrOperations.covers(r, ranges(0x2000, 0x4000)));
    }

    @Test
    void memoryBelowBetweenOrAboveTheRegionsIsNot()
    {
        final List<Region> r = regions(0x1000, 0x3000, 0x3000, 0x8000, 0x10000, 0x20000);
        assertFalse(VaddrOperations.covers(r, ranges(0x0, 0x1000)), "below");
        assertFalse(VaddrOperations.covers(r, ranges(0x7000, 0x9000)), "running into a gap");
        assertFalse(VaddrOperations.covers(r, ranges(0x1000, 0x2000, 0x9000, 0xa000)), "inside a gap");
        assertFalse(VaddrOperations.covers(r, ranges(0x1f000, 0x21000)), "past the end");
        assertFalse(VaddrOperations.covers(regions(), ranges(0x1000, 0x2000)), "no regions yet");
    }
}
