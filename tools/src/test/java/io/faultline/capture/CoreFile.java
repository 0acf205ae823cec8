package io.faultline.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An ELF-64 core file of x86-64 Linux, read as gdb reads it: the memory of its PT_LOAD segments
 * at their addresses, the threads' registers (NT_PRSTATUS), the signal (NT_SIGINFO) and the
 * mapped files (NT_FILE). Layouts: the System V ABI's ELF-64 object file format, and the notes as
 * the kernel writes them (fs/binfmt_elf.c, fill_note_info; include/uapi/linux/elfcore.h,
 * struct elf_prstatus; arch/x86/include/asm/user_64.h, struct user_regs_struct).
 */
final class CoreFile
{
    private static final int PT_LOAD = 1;
    private static final int PT_NOTE = 4;
    private static final int NT_PRSTATUS = 1;
    private static final int NT_SIGINFO = 0x53494749;
    private static final int NT_FILE = 0x46494c45;
    /** struct elf_prstatus: pr_cursig at 12, pr_reg at 112; rip is register 16 of user_regs_struct */
    private static final int PR_CURSIG = 12;
    private static final int PR_RIP = 112 + 16 * 8;

    /** One PT_LOAD segment: memory [address, address + memorySize), the first fileSize bytes in the file. */
    record Segment(long address, long memorySize, long offset, long fileSize)
    {
    }

    /** One NT_FILE entry: [start, end) maps the file from byte offset. */
    record MappedFile(long start, long end, long offset, String path)
    {
    }

    private final ByteBuffer data;
    final List<Segment> segments = new ArrayList<>();
    final List<MappedFile> files = new ArrayList<>();
    final List<Long> threadPcs = new ArrayList<>();
    int signal;
    int signalCode;

    private CoreFile(final ByteBuffer data)
    {
        this.data = data;
    }

    static CoreFile read(final Path path) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ))
        {
            final ByteBuffer data = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size()).order(ByteOrder.LITTLE_ENDIAN);
            if (data.getInt(0) != 0x464c457f || data.get(4) != 2 || data.getShort(16) != 4)
            {
                throw new IOException(path + " is no ELF-64 core file");
            }
            final CoreFile core = new CoreFile(data);
            core.parse();
            return core;
        }
    }

    private void parse()
    {
        final long phoff = data.getLong(32);
        final int phentsize = Short.toUnsignedInt(data.getShort(54));
        final int phnum = Short.toUnsignedInt(data.getShort(56));
        for (int i = 0; i < phnum; i++)
        {
            final int p = (int) (phoff + (long) i * phentsize);
            final int type = data.getInt(p);
            final long offset = data.getLong(p + 8);
            final long vaddr = data.getLong(p + 16);
            final long fileSize = data.getLong(p + 32);
            final long memSize = data.getLong(p + 40);
            if (type == PT_LOAD)
            {
                segments.add(new Segment(vaddr, memSize, offset, fileSize));
            }
            else if (type == PT_NOTE)
            {
                notes((int) offset, (int) fileSize);
            }
        }
    }

    private void notes(final int from, final int size)
    {
        int p = from;
        while (p + 12 <= from + size)
        {
            final int nameSize = data.getInt(p);
            final int descSize = data.getInt(p + 4);
            final int type = data.getInt(p + 8);
            final int desc = p + 12 + align4(nameSize);
            if (type == NT_PRSTATUS)
            {
                threadPcs.add(data.getLong(desc + PR_RIP));
                if (threadPcs.size() == 1)
                {
                    signal = data.getShort(desc + PR_CURSIG);
                }
            }
            else if (type == NT_SIGINFO)
            {
                signalCode = data.getInt(desc + 8);
            }
            else if (type == NT_FILE)
            {
                final long count = data.getLong(desc);
                final long pageSize = data.getLong(desc + 8);
                int names = desc + 16 + (int) count * 24;
                for (int k = 0; k < count; k++)
                {
                    final int e = desc + 16 + k * 24;
                    int end = names;
                    while (data.get(end) != 0)
                    {
                        end++;
                    }
                    final byte[] name = new byte[end - names];
                    data.get(names, name);
                    files.add(new MappedFile(data.getLong(e), data.getLong(e + 8), data.getLong(e + 16) * pageSize,
                        new String(name, StandardCharsets.UTF_8)));
                    names = end + 1;
                }
            }
            p = desc + align4(descSize);
        }
    }

    private static int align4(final int n)
    {
        return (n + 3) & ~3;
    }

    /** The bytes at [address, address + length) as the core holds them; null if any is not in it. */
    byte[] memory(final long address, final int length)
    {
        final byte[] out = new byte[length];
        int done = 0;
        while (done < length)
        {
            final long a = address + done;
            Segment in = null;
            for (final Segment s : segments)
            {
                if (a >= s.address() && a < s.address() + s.fileSize())
                {
                    in = s;
                    break;
                }
            }
            if (in == null)
            {
                return null;
            }
            final int n = (int) Math.min(length - done, in.address() + in.fileSize() - a);
            data.get((int) (in.offset() + (a - in.address())), out, done, n);
            done += n;
        }
        return out;
    }

    long word(final long address)
    {
        final byte[] b = memory(address, 8);
        return b == null ? -1 : ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Bytes of memory the core holds (its segments' file sizes). */
    long dumpedBytes()
    {
        return segments.stream().mapToLong(Segment::fileSize).sum();
    }

    /** The file and offset an address lies at, "path+0xoffset", or "?" outside every mapped file. */
    String where(final long address)
    {
        for (final MappedFile f : files)
        {
            if (address >= f.start() && address < f.end())
            {
                return Path.of(f.path()).getFileName() + "+0x" + Long.toHexString(f.offset() + address - f.start());
            }
        }
        return "?";
    }
}
