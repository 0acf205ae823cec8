package io.faultline.sim.stacks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Names the frames of a trace's call stacks from its code-map events, reading each mapped file's
 * symbols once ({@link ElfSymbols}) where the files are now. A frame in a mapping of a readable
 * ELF file whose symbols hold it prints as the function's name; else as the module (the file's
 * base name, or the mapping's name such as {@code [vdso]}) and {@code +0x} the file offset; a
 * frame outside every code-map (or in anonymous memory, such as a JIT's) as its address in hex.
 * A return address (every frame but the first) is looked up less one: it follows its call, which
 * may be the last instruction of its function.
 */
public final class Symbolizer
{
    private final Map<String, ElfSymbols> files = new HashMap<>();
    private final Map<String, String> unreadable = new HashMap<>();

    /** One executable mapping of a process image: [start, end) at file offset {@code offset} of path. */
    public record CodeMap(long start, long end, long offset, String path)
    {
    }

    /**
     * A stack's frames (innermost first: the faulting instruction, then return addresses) named
     * in the code maps of their process image, {@code maps} in announcement order.
     */
    public List<String> names(final List<CodeMap> maps, final long[] frames)
    {
        final List<String> names = new ArrayList<>(frames.length);
        for (int f = 0; f < frames.length; f++)
        {
            names.add(name(mapOf(maps, frames[f]), frames[f], f > 0));
        }
        return names;
    }

    /** The code map of {@code maps} (in announcement order) that holds {@code address}, or null. */
    static CodeMap mapOf(final List<CodeMap> maps, final long address)
    {
        CodeMap best = null;
        for (final CodeMap m : maps)
        {
            if (address >= m.start() && address < m.end())
            {
                best = m; // the latest: a mapping announced again after the address was reused
            }
        }
        return best;
    }

    /**
     * @param map the code map that holds {@code address}, or null
     * @param returnAddress the frame is a return address (not the faulting instruction)
     */
    public String name(final CodeMap map, final long address, final boolean returnAddress)
    {
        if (map == null || map.path().isEmpty())
        {
            return "0x" + Long.toHexString(address);
        }
        final long fileOffset = address - (returnAddress ? 1 : 0) - map.start() + map.offset();
        final ElfSymbols symbols = map.path().startsWith("/") ? symbols(map.path()) : null;
        final String function = symbols == null ? null : symbols.functionAtFileOffset(fileOffset);
        if (function != null)
        {
            return function;
        }
        return module(map.path()) + "+0x" + Long.toHexString(address - map.start() + map.offset()).toLowerCase(Locale.ROOT);
    }

    private static String module(final String path)
    {
        final int slash = path.lastIndexOf('/');
        return slash >= 0 ? path.substring(slash + 1) : path;
    }

    private ElfSymbols symbols(final String path)
    {
        if (unreadable.containsKey(path))
        {
            return null;
        }
        ElfSymbols s = files.get(path);
        if (s == null)
        {
            try
            {
                s = ElfSymbols.read(Path.of(path));
                files.put(path, s);
            }
            catch (final IOException | RuntimeException ex)
            {
                unreadable.put(path, ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage());
                return null;
            }
        }
        return s;
    }

    /** Files named by the trace that could not be read (their frames print as module+offset), with why. */
    public Map<String, String> unreadable()
    {
        return unreadable;
    }
}
