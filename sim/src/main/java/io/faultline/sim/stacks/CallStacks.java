package io.faultline.sim.stacks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;

/**
 * The call stacks of a trace recorded with {@code record --stacks N}, with the trapped references
 * counted per stack and every frame named ({@link Symbolizer}). Stack ids and code maps belong to
 * a process image (trace-format/FORMAT.md, "Call stacks"): they are kept per pid, and a pid's
 * process-start event begins a new image with none. Stacks that name the same functions are one
 * stack here, whichever process or image they came from.
 */
public final class CallStacks
{
    /** A stack, frames innermost first (the faulting function first), and its trapped references. */
    public record Stack(List<String> frames, long references)
    {
    }

    private final List<Stack> stacks;
    private final long references;
    private final long kernel;
    private final long withoutStack;
    private final Map<String, String> unreadable;

    private CallStacks(final List<Stack> stacks, final long references, final long kernel, final long withoutStack,
        final Map<String, String> unreadable)
    {
        this.stacks = stacks;
        this.references = references;
        this.kernel = kernel;
        this.withoutStack = withoutStack;
        this.unreadable = unreadable;
    }

    /** One process image: its stacks by id, its code maps, its references per stack id. */
    private static final class Image
    {
        final Map<Integer, long[]> stacks = new HashMap<>();
        final List<Symbolizer.CodeMap> maps = new ArrayList<>();
        final Map<Integer, long[]> counts = new HashMap<>();
    }

    /** Reads every reference and event of the trace; the reader's problems are its exceptions. */
    public static CallStacks read(final TraceReader reader)
    {
        return read(reader, -1, -1);
    }

    /** The same for the references of one process or thread only (-1: any). */
    public static CallStacks read(final TraceReader reader, final int pidFilter, final int tidFilter)
    {
        final Map<Integer, Image> current = new HashMap<>();
        final List<Image> images = new ArrayList<>();
        final long[] totals = new long[3]; // references, kernel, without a stack
        reader.forEach(new TraceVisitor()
        {
            private Image image(final int pid)
            {
                return current.computeIfAbsent(pid, p ->
                {
                    final Image i = new Image();
                    images.add(i);
                    return i;
                });
            }

            @Override
            public void onEvent(final TraceEvent event)
            {
                if (event.type() == EventType.PROCESS_START)
                {
                    current.remove(event.pid());
                }
                else if (event.type() == EventType.STACK)
                {
                    image(event.pid()).stacks.put((int)event.a(), frames(event.text()));
                }
                else if (event.type() == EventType.CODE_MAP)
                {
                    image(event.pid()).maps.add(new Symbolizer.CodeMap(event.a(), event.b(), event.c(), event.text()));
                }
            }

            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write)
            {
                onReference(seq, timeNs, pid, tid, address, write, false, 0);
            }

            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write, final boolean kernel, final int stack)
            {
                if ((pidFilter >= 0 && pid != pidFilter) || (tidFilter >= 0 && tid != tidFilter))
                {
                    return;
                }
                totals[0]++;
                if (kernel)
                {
                    totals[1]++;
                }
                if (stack == 0)
                {
                    totals[2]++;
                    return;
                }
                image(pid).counts.computeIfAbsent(stack, s -> new long[1])[0]++;
            }
        });
        final Symbolizer symbolizer = new Symbolizer();
        final Map<List<String>, long[]> merged = new LinkedHashMap<>();
        for (final Image image : images)
        {
            for (final Map.Entry<Integer, long[]> e : image.counts.entrySet())
            {
                final long[] frames = image.stacks.get(e.getKey());
                if (frames == null)
                {
                    totals[2] += e.getValue()[0]; // an id without its stack event: a damaged or cut trace
                    continue;
                }
                merged.computeIfAbsent(symbolizer.names(image.maps, frames), n -> new long[1])[0] += e.getValue()[0];
            }
        }
        final List<Stack> stacks = new ArrayList<>();
        merged.forEach((names, count) -> stacks.add(new Stack(List.copyOf(names), count[0])));
        stacks.sort(Comparator.comparingLong(Stack::references).reversed()
            .thenComparing(s -> String.join(";", s.frames())));
        return new CallStacks(stacks, totals[0], totals[1], totals[2], symbolizer.unreadable());
    }

    /**
     * Brendan Gregg's collapsed stacks (FlameGraph's stackcollapse output, which flamegraph.pl and
     * speedscope read): one line per distinct stack, its frames root first joined by ';', a space
     * and its trapped references; references without a stack as one frame {@code [no stack]}.
     * A ';' or a newline inside a frame name becomes '_', as stackcollapse-perf.pl does.
     */
    public long writeFolded(final Appendable out) throws java.io.IOException
    {
        long lines = 0;
        final StringBuilder line = new StringBuilder();
        for (final Stack s : stacks)
        {
            line.setLength(0);
            for (int f = s.frames().size() - 1; f >= 0; f--)
            {
                line.append(s.frames().get(f).replace(';', '_').replace('\n', '_').replace(' ', '_'));
                if (f > 0)
                {
                    line.append(';');
                }
            }
            out.append(line).append(' ').append(Long.toString(s.references())).append('\n');
            lines++;
        }
        if (withoutStack > 0)
        {
            out.append("[no stack] ").append(Long.toString(withoutStack)).append('\n');
            lines++;
        }
        return lines;
    }

    /** A stack event's text: frames in hex separated by spaces. */
    static long[] frames(final String text)
    {
        final String trimmed = text.trim();
        if (trimmed.isEmpty())
        {
            return new long[0];
        }
        final String[] words = trimmed.split(" +");
        final long[] frames = new long[words.length];
        for (int i = 0; i < words.length; i++)
        {
            frames[i] = Long.parseUnsignedLong(words[i], 16);
        }
        return frames;
    }

    /** Every distinct stack (by function names), most trapped references first. */
    public List<Stack> stacks()
    {
        return stacks;
    }

    /** Trapped references of the trace. */
    public long references()
    {
        return references;
    }

    /** Of them, made by the kernel in a system call (the gate's): they carry no stack. */
    public long kernelReferences()
    {
        return kernel;
    }

    /** Of them, those without a stack: kernel references, and those past a full stack table. */
    public long withoutStack()
    {
        return withoutStack;
    }

    /** Files the trace names that could not be read for symbols, with why. */
    public Map<String, String> unreadable()
    {
        return unreadable;
    }

    /**
     * The references per call site: the innermost {@code depth} frames of each stack (all of them
     * when depth exceeds it), merged, most first.
     */
    public List<Stack> callSites(final int depth)
    {
        final Map<List<String>, long[]> sites = new LinkedHashMap<>();
        for (final Stack s : stacks)
        {
            final List<String> site = s.frames().subList(0, Math.min(depth, s.frames().size()));
            sites.computeIfAbsent(site, k -> new long[1])[0] += s.references();
        }
        final List<Stack> out = new ArrayList<>();
        sites.forEach((frames, count) -> out.add(new Stack(List.copyOf(frames), count[0])));
        out.sort(Comparator.comparingLong(Stack::references).reversed().thenComparing(s -> String.join(";", s.frames())));
        return out;
    }
}
