package io.faultline.sim.stacks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The function symbols of one x86-64 ELF file, to name a code address given as a file offset
 * (the trace's code-map events say where a file was mapped and at which offset). Reads the
 * System V ABI's ELF-64 object file format (ELF-64 Object File Format, version 1.5, and the
 * System V ABI's gABI chapters 4 and 5): the program headers' PT_LOAD segments turn a file offset
 * into the virtual address symbols are given in (p_vaddr + offset - p_offset), and the symbols are
 * those of {@code .symtab} (the linker's full table, absent from a stripped file) and then of
 * {@code .dynsym} (the exported ones every shared object keeps): STT_FUNC and STT_GNU_IFUNC with a
 * size. An address is named by the symbol whose [value, value + size) holds it; an address in no
 * symbol's extent has no name (a stripped library's internal function). Names are not demangled.
 */
public final class ElfSymbols
{
    private static final int PT_LOAD = 1;
    private static final int SHT_SYMTAB = 2;
    private static final int SHT_DYNSYM = 11;
    private static final int STT_FUNC = 2;
    private static final int STT_GNU_IFUNC = 10;
    private static final int SYM_SIZE = 24;

    /** Loadable segments: file offset, size in the file, virtual address; by file offset. */
    private final long[][] segments;
    /** Function symbols by start address (ties: the larger first). */
    private final long[] starts;
    private final long[] ends;
    private final String[] names;

    private ElfSymbols(final long[][] segments, final List<Symbol> symbols)
    {
        this.segments = segments;
        symbols.sort(Comparator.comparingLong(Symbol::start).thenComparing(Comparator.comparingLong(Symbol::end).reversed()));
        starts = new long[symbols.size()];
        ends = new long[symbols.size()];
        names = new String[symbols.size()];
        for (int i = 0; i < symbols.size(); i++)
        {
            starts[i] = symbols.get(i).start();
            ends[i] = symbols.get(i).end();
            names[i] = symbols.get(i).name();
        }
    }

    private record Symbol(long start, long end, String name)
    {
    }

    /**
     * @throws IOException the file cannot be read, or is no little-endian ELF-64 file (the
     *     message says which)
     */
    public static ElfSymbols read(final Path file) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
            return parse(map.order(ByteOrder.LITTLE_ENDIAN), file);
        }
    }

    private static ElfSymbols parse(final ByteBuffer b, final Path file) throws IOException
    {
        if (b.limit() < 64 || b.getInt(0) != 0x464c457f || b.get(4) != 2 || b.get(5) != 1)
        {
            throw new IOException(file + " is no little-endian 64-bit ELF file");
        }
        try
        {
            final long phoff = b.getLong(0x20);
            final long shoff = b.getLong(0x28);
            final int phentsize = Short.toUnsignedInt(b.getShort(0x36));
            final int phnum = Short.toUnsignedInt(b.getShort(0x38));
            final int shentsize = Short.toUnsignedInt(b.getShort(0x3a));
            final int shnum = Short.toUnsignedInt(b.getShort(0x3c));
            final List<long[]> loads = new ArrayList<>();
            for (int i = 0; i < phnum; i++)
            {
                final int p = Math.toIntExact(phoff + (long)i * phentsize);
                if (b.getInt(p) == PT_LOAD)
                {
                    loads.add(new long[] {b.getLong(p + 8), b.getLong(p + 32), b.getLong(p + 16)});
                }
            }
            final List<Symbol> symbols = new ArrayList<>();
            // .symtab first: where a file has both, every .dynsym function is in .symtab too
            for (final int wanted : new int[] {SHT_SYMTAB, SHT_DYNSYM})
            {
                for (int i = 0; i < shnum && symbols.isEmpty(); i++)
                {
                    final int s = Math.toIntExact(shoff + (long)i * shentsize);
                    if (b.getInt(s + 4) == wanted)
                    {
                        final int strtab = Math.toIntExact(shoff + (long)b.getInt(s + 40) * shentsize);
                        readSymbols(b, Math.toIntExact(b.getLong(s + 24)), Math.toIntExact(b.getLong(s + 32)),
                            Math.toIntExact(b.getLong(strtab + 24)), symbols);
                    }
                }
            }
            return new ElfSymbols(loads.toArray(new long[0][]), symbols);
        }
        catch (final IndexOutOfBoundsException | ArithmeticException ex)
        {
            throw new IOException(file + " is a damaged ELF file: a header points outside it");
        }
    }

    private static void readSymbols(final ByteBuffer b, final int offset, final int size, final int strings,
        final List<Symbol> out)
    {
        for (int at = offset; at + SYM_SIZE <= offset + size; at += SYM_SIZE)
        {
            final int type = b.get(at + 4) & 0xf;
            final long value = b.getLong(at + 8);
            final long length = b.getLong(at + 16);
            if ((type == STT_FUNC || type == STT_GNU_IFUNC) && value != 0 && length > 0)
            {
                out.add(new Symbol(value, value + length, string(b, strings + b.getInt(at))));
            }
        }
    }

    private static String string(final ByteBuffer b, final int at)
    {
        int end = at;
        while (b.get(end) != 0)
        {
            end++;
        }
        final byte[] bytes = new byte[end - at];
        b.get(at, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The virtual address of a file offset inside a loadable segment, or -1. */
    public long addressOf(final long fileOffset)
    {
        for (final long[] s : segments)
        {
            if (fileOffset >= s[0] && fileOffset - s[0] < s[1])
            {
                return s[2] + fileOffset - s[0];
            }
        }
        return -1;
    }

    /** The function that holds virtual address {@code address}, or null. */
    public String functionAt(final long address)
    {
        int i = Arrays.binarySearch(starts, address);
        if (i < 0)
        {
            i = -i - 2;
        }
        else
        {
            while (i > 0 && starts[i - 1] == address)
            {
                i--;
            }
        }
        // the nearest preceding start whose extent holds the address (a nested or shorter symbol
        // may start later and end earlier: look back a little)
        for (int k = i; k >= 0 && k > i - 8; k--)
        {
            if (address >= starts[k] && address < ends[k])
            {
                return names[k];
            }
        }
        return null;
    }

    /** The function at a file offset, or null (outside every segment or every function). */
    public String functionAtFileOffset(final long fileOffset)
    {
        final long address = addressOf(fileOffset);
        return address < 0 ? null : functionAt(address);
    }

    public int functions()
    {
        return names.length;
    }
}
