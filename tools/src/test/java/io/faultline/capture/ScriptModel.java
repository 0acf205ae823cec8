package io.faultline.capture;

import java.util.ArrayList;
import java.util.List;

import io.faultline.sim.policy.evms.EvmsModel;

/**
 * What the agent must record for an api_script workload, by {@link EvmsModel}, the one model of
 * each EVMS policy: reference records ("r3", "w0": kind and page) and eviction records
 * ("evict W3": tag and page) in trace order, ending with the flush at the process's exit.
 * Script ops: rK read, wK write, sK read(2) into page K (a kernel write), uK munmap of page K,
 * t0 the whole range registered again (its resident pages leave the EVMS at once).
 */
final class ScriptModel
{
    private ScriptModel()
    {
    }

    /** Only the reference records under fifo ("r3", "w0"), for tests that read no evictions. */
    static List<String> references(final int evms, final String script)
    {
        final List<String> references = new ArrayList<>(expected(EvmsModel.Trail.NONE, evms, 0, Integer.MAX_VALUE, script));
        references.removeIf(item -> item.startsWith("evict"));
        return references;
    }

    static List<String> expected(final EvmsModel.Trail trail, final int evms, final int lead, final int pages,
        final String script)
    {
        return expected(trail, evms, lead, pages, script, true);
    }

    static List<String> expected(final EvmsModel.Trail trail, final int evms, final int lead, final int pages,
        final String script, final boolean dirtyTracking)
    {
        final List<String> out = new ArrayList<>();
        final List<String> evicted = new ArrayList<>();
        final EvmsModel model = new EvmsModel(evms, lead, trail,
            (page, tid, tag, deleted) -> evicted.add("evict " + tag + page));
        if (!dirtyTracking)
        {
            model.withoutDirtyTracking();
        }
        for (final String op : script.split(","))
        {
            final char kind = op.charAt(0);
            final long page = Long.parseLong(op.substring(1));
            switch (kind)
            {
                case 'r', 'w', 's' ->
                {
                    // read(2) into a page is the kernel writing it: recorded as a write
                    final boolean write = kind != 'r';
                    if (model.reference(page, 0, write) == EvmsModel.Outcome.RECORD)
                    {
                        out.add((write ? "w" : "r") + page); // a record comes before the evictions it causes
                    }
                }
                case 'u', 'd' -> model.delete(page, page + 1);
                case 't' -> model.flush(0, pages);
                default -> throw new IllegalArgumentException("no model for op " + op);
            }
            out.addAll(evicted);
            evicted.clear();
        }
        model.clear();
        out.addAll(evicted);
        return out;
    }
}
