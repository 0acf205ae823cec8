package io.faultline.damon;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A monitoring target, {@code struct damon_target} of include/linux/damon.h: an id (a process
 * id for the virtual-address and trace operations sets) and its regions, kept sorted by address
 * and not overlapping.
 */
public final class Target
{
    private final long id;
    final List<Region> regions = new ArrayList<>();

    public Target(final long id)
    {
        this.id = id;
    }

    public long id()
    {
        return id;
    }

    public List<Region> regions()
    {
        return Collections.unmodifiableList(regions);
    }

    /** damon_nr_regions(). */
    public int nrRegions()
    {
        return regions.size();
    }

    /** damon_add_region(): appends; the caller keeps the list sorted. */
    public void addRegion(final Region region)
    {
        regions.add(region);
    }

    /** Inserts {@code region}, which overlaps none, where its address puts it; returns its index. */
    public int insertRegion(final Region region)
    {
        int i = 0;
        while (i < regions.size() && regions.get(i).start() < region.start())
        {
            i++;
        }
        regions.add(i, region);
        return i;
    }

    /** damon_destroy_region(). */
    public void destroyRegion(final Region region)
    {
        regions.remove(region);
    }

    /** Replaces the region at {@code index} with {@code pieces}, which cover it in address order. */
    public void replaceRegion(final int index, final List<Region> pieces)
    {
        regions.remove(index);
        regions.addAll(index, pieces);
    }

    void clearRegions()
    {
        regions.clear();
    }
}
