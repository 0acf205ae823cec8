package io.faultline.format;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import io.airlift.compress.MalformedInputException;
import io.airlift.compress.zstd.ZstdInputStream;
import io.airlift.compress.zstd.ZstdOutputStream;

/**
 * A trace in one file (FORMAT.md, "Packed traces"): a POSIX ustar archive of the trace directory
 * (its header, then its queue's files, each cut after its content as {@link QueueFiles} does),
 * compressed with zstd. {@code tar --zstd -xf TRACE.flt} gives the directory back, named as the
 * packed one was; {@code faultline unpack} does the same into a directory of one's choice, and
 * {@link TraceReader#open} reads a packed trace as it reads a directory, unpacking it into a
 * temporary one. An uncompressed tar of a trace directory reads the same.
 * <p>
 * The archive is the one IEEE Std 1003.1-2001 ("pax", ustar format) describes; this class writes
 * and reads only what a trace needs: directories and regular files, names of up to 100 bytes in
 * one top-level directory.
 */
public final class TracePack
{
    /** The file name ending that {@code record} and {@code pack} give a packed trace. */
    public static final String EXTENSION = ".flt";
    private static final byte[] ZSTD_MAGIC = {0x28, (byte)0xb5, 0x2f, (byte)0xfd};
    private static final int BLOCK = 512;
    private static final int USTAR_MAGIC_AT = 257;
    private static final int NAME_SIZE = 100;

    private TracePack()
    {
    }

    /** Whether {@code path} is a regular file that begins as a packed trace does (zstd, or a plain tar). */
    public static boolean isPack(final Path path)
    {
        if (!Files.isRegularFile(path))
        {
            return false;
        }
        // a tar's first header, decompressed first if zstd: a zstd-compressed text trace is no pack
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(path)))
        {
            raw.mark(4);
            final byte[] magic = raw.readNBytes(4);
            raw.reset();
            final InputStream in = Arrays.equals(magic, ZSTD_MAGIC) ? new ZstdInputStream(raw) : raw;
            final byte[] head = in.readNBytes(USTAR_MAGIC_AT + 5);
            return head.length == USTAR_MAGIC_AT + 5
                && new String(head, USTAR_MAGIC_AT, 5, StandardCharsets.US_ASCII).equals("ustar");
        }
        catch (final IOException | RuntimeException ex)
        {
            return false; // unreadable or not zstd after all: the caller says what it is not
        }
    }

    /**
     * Writes the trace in {@code dir} into {@code file} (replaced whole, through a temporary file
     * beside it), its top-level directory named as {@code dir} is.
     *
     * @return the packed file's size in bytes
     */
    public static long pack(final Path dir, final Path file) throws IOException
    {
        final String top = topName(dir);
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try
        {
            try (OutputStream out = new ZstdOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)))
            {
                directory(out, top + "/");
                regular(out, top + "/" + TraceLayout.HEADER_FILE, dir.resolve(TraceLayout.HEADER_FILE), false);
                final Path queue = dir.resolve(TraceLayout.QUEUE_DIR);
                if (Files.isDirectory(queue))
                {
                    directory(out, top + "/" + TraceLayout.QUEUE_DIR + "/");
                    for (final Path f : QueueFiles.files(queue))
                    {
                        regular(out, top + "/" + TraceLayout.QUEUE_DIR + "/" + f.getFileName(), f, true);
                    }
                }
                out.write(new byte[2 * BLOCK]); // the archive's end: two zero blocks
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        finally
        {
            Files.deleteIfExists(tmp);
        }
        return Files.size(file);
    }

    private static String topName(final Path dir)
    {
        final Path name = dir.toAbsolutePath().normalize().getFileName();
        final String top = name == null ? "trace" : name.toString();
        // the longest member name, queue/metadata.cq4t, must fit ustar's 100 bytes with it
        final byte[] bytes = top.getBytes(StandardCharsets.UTF_8);
        return bytes.length > 60 || top.equals("..") ? "trace" : top;
    }

    private static void directory(final OutputStream out, final String name) throws IOException
    {
        out.write(header(name, 0, '5', 0755));
    }

    /** A member of {@code file}'s bytes; a queue file up to its content only. */
    private static void regular(final OutputStream out, final String name, final Path file, final boolean queueFile)
        throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final long length = queueFile ? Math.min(channel.size(), (QueueFiles.contentEnd(channel) + 4095) / 4096 * 4096)
                : channel.size();
            out.write(header(name, length, '0', 0644));
            final InputStream in = java.nio.channels.Channels.newInputStream(channel.position(0));
            final byte[] buffer = new byte[1 << 16];
            long left = length;
            while (left > 0)
            {
                final int n = in.read(buffer, 0, (int)Math.min(buffer.length, left));
                if (n < 0)
                {
                    throw new IOException(file + " shrank while it was packed");
                }
                out.write(buffer, 0, n);
                left -= n;
            }
            final int pad = (int)((BLOCK - length % BLOCK) % BLOCK);
            out.write(new byte[pad]);
        }
    }

    private static byte[] header(final String name, final long size, final char type, final int mode)
    {
        final byte[] h = new byte[BLOCK];
        final byte[] n = name.getBytes(StandardCharsets.UTF_8);
        if (n.length > NAME_SIZE)
        {
            throw new IllegalArgumentException("member name longer than 100 bytes: " + name);
        }
        System.arraycopy(n, 0, h, 0, n.length);
        octal(h, 100, 8, mode);
        octal(h, 108, 8, 0);
        octal(h, 116, 8, 0);
        octal(h, 124, 12, size);
        octal(h, 136, 12, System.currentTimeMillis() / 1000);
        Arrays.fill(h, 148, 156, (byte)' ');
        h[156] = (byte)type;
        System.arraycopy("ustar\0".getBytes(StandardCharsets.US_ASCII), 0, h, USTAR_MAGIC_AT, 6);
        h[263] = '0';
        h[264] = '0';
        long sum = 0;
        for (final byte b : h)
        {
            sum += b & 0xff;
        }
        octal(h, 148, 7, sum);
        h[155] = ' ';
        return h;
    }

    /** An octal number in {@code width - 1} digits and a NUL, as ustar writes numbers. */
    private static void octal(final byte[] h, final int at, final int width, final long value)
    {
        final String digits = Long.toOctalString(value);
        final String padded = "0".repeat(Math.max(0, width - 1 - digits.length())) + digits;
        System.arraycopy(padded.getBytes(StandardCharsets.US_ASCII), 0, h, at, width - 1);
        h[at + width - 1] = 0;
    }

    /**
     * Unpacks {@code file} into {@code dir} (new or empty): the trace's header and queue land in
     * {@code dir} itself, whatever the top-level directory was named.
     *
     * @throws TraceFormatException with one line if {@code file} is not a packed trace or is damaged
     */
    public static void unpack(final Path file, final Path dir)
    {
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16))
        {
            raw.mark(4);
            final byte[] magic = raw.readNBytes(4);
            raw.reset();
            final InputStream in = Arrays.equals(magic, ZSTD_MAGIC) ? new ZstdInputStream(raw) : raw;
            extract(file, in, dir);
        }
        catch (final NoSuchFileException ex)
        {
            throw new TraceFormatException("no trace at " + file + ": no such file or directory", InputProblem.UNREADABLE);
        }
        catch (final MalformedInputException | java.io.UncheckedIOException ex)
        {
            throw new TraceFormatException("corrupt packed trace " + file + ": its zstd compression is damaged");
        }
        catch (final java.nio.file.FileSystemException ex)
        {
            // the OS's refusal (permission, a full disk for the unpacked files): the fix is the user's
            throw new TraceFormatException("cannot unpack packed trace " + file + ": " + InputProblem.reason(ex),
                InputProblem.UNREADABLE);
        }
        catch (final IOException ex)
        {
            // the decompressor's: "not enough input bytes" for a file cut short
            throw new TraceFormatException("corrupt packed trace " + file + ": it is cut short or its zstd compression is"
                + " damaged (" + InputProblem.reason(ex) + ")");
        }
    }

    private static void extract(final Path file, final InputStream in, final Path dir) throws IOException
    {
        Files.createDirectories(dir);
        String top = null;
        final byte[] h = new byte[BLOCK];
        boolean header = false;
        while (true)
        {
            if (in.readNBytes(h, 0, BLOCK) < BLOCK)
            {
                throw new TraceFormatException("corrupt packed trace " + file + ": it ends inside a member");
            }
            if (isZero(h))
            {
                break;
            }
            if (!new String(h, USTAR_MAGIC_AT, 5, StandardCharsets.US_ASCII).equals("ustar") || !checksumOk(h))
            {
                throw new TraceFormatException("corrupt packed trace " + file + ": a tar header is damaged, or this is "
                    + "not a trace packed by faultline pack");
            }
            String name = cString(h, 0, NAME_SIZE);
            final String prefix = cString(h, 345, 155);
            if (!prefix.isEmpty())
            {
                name = prefix + "/" + name;
            }
            final long size = parseOctal(file, h, 124, 12);
            final char type = (char)h[156];
            // one top-level directory (or none: a tar of the directory's contents, "./header.properties")
            final List<String> parts = new ArrayList<>(List.of(name.split("/+")));
            parts.removeIf(p -> p.isEmpty() || p.equals("."));
            if (parts.stream().anyMatch(p -> p.equals("..")))
            {
                throw new TraceFormatException("corrupt packed trace " + file + ": member " + name + " leaves its directory");
            }
            if (!parts.isEmpty() && !parts.get(0).equals(TraceLayout.HEADER_FILE) && !parts.get(0).equals(TraceLayout.QUEUE_DIR))
            {
                if (top == null)
                {
                    top = parts.get(0);
                }
                if (!parts.get(0).equals(top))
                {
                    throw new TraceFormatException("packed trace " + file + " holds more than one directory (" + top
                        + ", " + parts.get(0) + "); pack one trace per file", InputProblem.MISUSED);
                }
                parts.remove(0);
            }
            final Path target = parts.isEmpty() ? dir : dir.resolve(String.join("/", parts));
            if (type == '5')
            {
                Files.createDirectories(target);
                skip(file, in, size);
            }
            else if (type == '0' || type == 0)
            {
                Files.createDirectories(target.getParent());
                try (OutputStream out = Files.newOutputStream(target))
                {
                    copy(file, in, out, size);
                }
                skip(file, in, (BLOCK - size % BLOCK) % BLOCK);
                header |= target.equals(dir.resolve(TraceLayout.HEADER_FILE));
            }
            else
            {
                throw new TraceFormatException("corrupt packed trace " + file + ": member " + name + " is of tar type '"
                    + type + "', which no trace holds");
            }
        }
        if (!header)
        {
            throw new TraceFormatException(file + " is not a packed faultline trace: it holds no " + TraceLayout.HEADER_FILE,
                InputProblem.MISUSED);
        }
    }

    private static void copy(final Path file, final InputStream in, final OutputStream out, final long size)
        throws IOException
    {
        final byte[] buffer = new byte[1 << 16];
        long left = size;
        while (left > 0)
        {
            final int n = in.read(buffer, 0, (int)Math.min(buffer.length, left));
            if (n < 0)
            {
                throw new TraceFormatException("corrupt packed trace " + file + ": it ends inside a member");
            }
            out.write(buffer, 0, n);
            left -= n;
        }
    }

    private static void skip(final Path file, final InputStream in, final long n) throws IOException
    {
        try
        {
            in.skipNBytes(n);
        }
        catch (final java.io.EOFException ex)
        {
            throw new TraceFormatException("corrupt packed trace " + file + ": it ends inside a member");
        }
    }

    private static boolean isZero(final byte[] h)
    {
        for (final byte b : h)
        {
            if (b != 0)
            {
                return false;
            }
        }
        return true;
    }

    private static boolean checksumOk(final byte[] h)
    {
        long sum = 0;
        for (int i = 0; i < BLOCK; i++)
        {
            sum += i >= 148 && i < 156 ? ' ' : h[i] & 0xff;
        }
        final String field = cString(h, 148, 8).trim();
        try
        {
            return !field.isEmpty() && Long.parseLong(field, 8) == sum;
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
    }

    private static long parseOctal(final Path file, final byte[] h, final int at, final int width)
    {
        final String field = cString(h, at, width).trim();
        try
        {
            final long v = Long.parseLong(field, 8);
            if (v >= 0)
            {
                return v;
            }
        }
        catch (final NumberFormatException ex)
        {
            // below
        }
        throw new TraceFormatException("corrupt packed trace " + file + ": a member's size '" + field + "' is not a number");
    }

    private static String cString(final byte[] h, final int at, final int width)
    {
        int end = at;
        while (end < at + width && h[end] != 0)
        {
            end++;
        }
        return new String(h, at, end - at, StandardCharsets.UTF_8);
    }

    /** Deletes {@code dir} and everything in it (a temporary unpacked trace). */
    public static void deleteTree(final Path dir)
    {
        try (Stream<Path> walk = Files.walk(dir))
        {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException ex)
        {
            // gone already, or not ours to clean up
        }
    }
}
