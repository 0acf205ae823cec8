package io.faultline.sim.stacks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;

/**
 * Names a trace's call stacks as it is read, for the tables that hold one row per stack event
 * ({@code sql}'s and the Parquet export's {@code stacks}): each process image's code maps as its
 * code-map events have announced them so far (a process start begins a new image), so that a
 * stack's frames are looked up in the mappings of the moment it was recorded, and named by one
 * {@link Symbolizer} (each file's symbols read once).
 */
public final class FrameNames
{
    /** What separates the names of a stack's frames: function names hold no ';' (FlameGraph's collapsed stacks use it too). */
    public static final String SEPARATOR = ";";

    private final Symbolizer symbolizer = new Symbolizer();
    private final Map<Integer, List<Symbolizer.CodeMap>> maps = new HashMap<>();

    /** Follows process starts and code-map events; every other event is ignored. */
    public void onEvent(final TraceEvent event)
    {
        if (event.type() == EventType.PROCESS_START)
        {
            maps.remove(event.pid());
        }
        else if (event.type() == EventType.CODE_MAP)
        {
            maps.computeIfAbsent(event.pid(), p -> new ArrayList<>())
                .add(new Symbolizer.CodeMap(event.a(), event.b(), event.c(), event.text()));
        }
    }

    /**
     * The names of a stack event's frames (its text: return addresses in hex, innermost first), in
     * the same order, joined by {@link #SEPARATOR}; {@link Symbolizer#name} says how a frame is named.
     */
    public String names(final int pid, final String frames)
    {
        return String.join(SEPARATOR, symbolizer.names(maps.getOrDefault(pid, List.of()), CallStacks.frames(frames)));
    }
}
