package io.faultline.format;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * What the survey of a format-4 trace found damaged, and what the damage took: each damaged
 * place in the queue, named by its file and byte, with what was lost there. A block whose header
 * is sound says itself what it held (references, threads, seq and time); where the damage took
 * the headers too, the blocks around it say it: every block carries its place among its
 * process's blocks and how many references came before it, so that a process's blocks that are
 * missing are found, and counted exactly, wherever they were lost (FORMAT.md, "Damage").
 */
final class QueueDamage
{
    /** A damaged place: bytes of a file that are not a sound block. */
    static final class Region
    {
        final int file;
        final long start;
        /** End in the file, exclusive; for a damaged block, its end. */
        final long end;
        final long ordinal;
        final String what;
        /** The block whose header is sound but whose body or place is not; null where no header could be read. */
        final BlockRef block;
        final List<Gap> gaps = new ArrayList<>();

        Region(final int file, final long start, final long end, final long ordinal, final String what, final BlockRef block)
        {
            this.file = file;
            this.start = start;
            this.end = end;
            this.ordinal = ordinal;
            this.what = what;
            this.block = block;
        }

        long place()
        {
            return BlockRef.place(file, start);
        }

        /** References it took: its block's, or those of the missing blocks it is blamed for; -1 if unknown. */
        long references()
        {
            if (block != null)
            {
                return block.records;
            }
            long n = 0;
            for (final Gap g : gaps)
            {
                if (g.references < 0)
                {
                    return -1;
                }
                n += g.references;
            }
            return n;
        }

        boolean lostSomething()
        {
            return block != null || !gaps.isEmpty();
        }
    }

    /** Blocks of one process that are missing between two that are there (or before the first, or after the last). */
    static final class Gap
    {
        final int pid;
        final BlockRef after;
        final BlockRef before;
        /** References the missing blocks held; -1 if unknown (the end of a partial trace). */
        final long references;

        Gap(final int pid, final BlockRef after, final BlockRef before, final long references)
        {
            this.pid = pid;
            this.after = after;
            this.before = before;
            this.references = references;
        }

        /** Where the missing blocks were: after the block before them (or the queue's start). */
        long place()
        {
            return after == null ? 0 : after.end();
        }
    }

    final List<Region> regions = new ArrayList<>();
    private final List<Gap> gaps = new ArrayList<>();

    void add(final Region region)
    {
        regions.add(region);
    }

    /**
     * Finds the blocks each process misses, from its blocks in queue order (sound and damaged,
     * with sound headers), and blames each gap on the first damaged place between the blocks
     * around it, or on a place of its own where nothing else was seen damaged there.
     *
     * @param expected a process's references by the header of a complete trace, or -1 where not known
     */
    void account(final Map<Integer, List<BlockRef>> blocks, final IntFunction<Long> expected, final List<Path> files)
    {
        for (final Map.Entry<Integer, List<BlockRef>> process : blocks.entrySet())
        {
            final int pid = process.getKey();
            long nextIndex = 0;
            long nextBefore = 0;
            BlockRef previous = null;
            for (final BlockRef b : process.getValue())
            {
                if (b.index > nextIndex)
                {
                    gaps.add(new Gap(pid, previous, b, b.recordsBefore - nextBefore));
                }
                nextIndex = b.index + 1;
                nextBefore = b.recordsBefore + b.records;
                previous = b;
            }
            final long total = expected.apply(pid);
            if (total > nextBefore)
            {
                gaps.add(new Gap(pid, previous, null, total - nextBefore));
            }
        }
        for (final Gap g : gaps)
        {
            final long from = g.place();
            final long to = g.before == null ? Long.MAX_VALUE : g.before.place();
            Region blamed = null;
            for (final Region r : regions)
            {
                if (r.block == null && r.place() >= from && r.place() < to)
                {
                    blamed = r;
                    break;
                }
            }
            if (blamed == null)
            {
                final int file = g.after == null ? 0 : g.after.file;
                final long start = g.after == null ? 0 : g.after.start + g.after.length;
                blamed = new Region(file, start, start, g.after == null ? 0 : g.after.ordinal + 1,
                    g.before == null ? "the queue ends before the process's last blocks"
                        : "a block of the process is missing here (its Chronicle header word is damaged)", null);
                insert(blamed);
            }
            blamed.gaps.add(g);
        }
    }

    private void insert(final Region region)
    {
        int i = 0;
        while (i < regions.size() && regions.get(i).place() <= region.place())
        {
            i++;
        }
        regions.add(i, region);
    }

    /** The first place that lost something, in queue order; null if none did. */
    Region firstLoss()
    {
        Region first = null;
        for (final Region r : regions)
        {
            if (r.lostSomething() && (first == null || r.place() < first.place()))
            {
                first = r;
            }
        }
        return first;
    }

    /** Places that lost something. */
    int losses()
    {
        int n = 0;
        for (final Region r : regions)
        {
            if (r.lostSomething())
            {
                n++;
            }
        }
        return n;
    }

    /** References lost, by the damaged blocks' headers and the gaps; -1 if a gap's is unknown. */
    long referencesLost()
    {
        long n = 0;
        for (final Region r : regions)
        {
            if (r.block != null)
            {
                n += r.block.records;
            }
        }
        for (final Gap g : gaps)
        {
            if (g.references < 0)
            {
                return -1;
            }
            n += g.references;
        }
        return n;
    }

    /**
     * One line on one damaged place: its file and byte, what is wrong, what was lost.
     *
     * @param shownFile the queue file as the user should see it
     * @param origin    the program's start, which delivered times count from
     */
    static String describe(final Region r, final String shownFile, final long origin)
    {
        final StringBuilder s = new StringBuilder(shownFile).append(" at byte ").append(r.start);
        if (r.block != null)
        {
            final BlockRef b = r.block;
            s.append(": a damaged block (").append(r.what).append("); lost ").append(count(b.records, "reference"))
                .append(" and ").append(count(b.events, "event")).append(" of process ").append(b.pid);
            if (b.threads > 0)
            {
                s.append(" (thread ").append(b.tid).append(b.threads == 1 ? "" : b.threads == 2 ? " and 1 other"
                    : " and " + (b.threads - 1) + " others").append(')');
            }
            s.append(", seq ").append(Long.toUnsignedString(b.firstSeq)).append(" to ").append(Long.toUnsignedString(b.lastSeq))
                .append(", ").append(seconds(b.minTime - origin)).append(" to ").append(seconds(b.maxTime - origin));
            return s.toString();
        }
        if (r.end > r.start)
        {
            s.append(" (").append(r.end - r.start).append(" bytes)");
        }
        s.append(": ").append(r.what);
        if (r.gaps.isEmpty())
        {
            return s.append("; it held none of the trace's blocks (they are all there), so nothing is lost").toString();
        }
        s.append("; lost ");
        for (int i = 0; i < r.gaps.size(); i++)
        {
            final Gap g = r.gaps.get(i);
            if (i > 0)
            {
                s.append(", and ");
            }
            s.append(g.references < 0 ? "the references" : count(g.references, "reference")).append(" of process ")
                .append(g.pid).append(' ')
                .append(g.after == null ? "from its start" : "after seq " + Long.toUnsignedString(g.after.lastSeq)
                    + " (" + seconds(g.after.maxTime - origin) + ")")
                .append(g.before == null ? " to its end" : " up to seq " + Long.toUnsignedString(g.before.firstSeq)
                    + " (" + seconds(g.before.minTime - origin) + ")");
        }
        return s.append(", by the blocks around it").toString();
    }

    private static String count(final long n, final String noun)
    {
        return String.format(Locale.ROOT, "%,d %s%s", n, noun, n == 1 ? "" : "s");
    }

    private static String seconds(final long ns)
    {
        return String.format(Locale.ROOT, "%.3f s", Math.max(0, ns) / 1e9);
    }
}
