package io.faultline.fuzz;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import io.faultline.format.TraceLayout;

/**
 * A valid trace or monitoring record directory (a header and a Chronicle Queue) that a fuzzer
 * damages and restores after each try. Only the written part of a queue file is mutated (past it lie zeros the
 * queue never reached), with changes that keep the file's length, or by cutting it short.
 */
final class QueueDirectory
{
    /** One file of the directory and its original written bytes. */
    private record Original(Path file, long length, byte[] written)
    {
    }

    private final Path dir;
    private final Path pristine;
    private final List<Original> files = new ArrayList<>();
    /** Whether a queue file was damaged since the last restore (a header is put back alone, faster). */
    private boolean queueDamaged = true;

    QueueDirectory(final Path dir) throws IOException
    {
        this.dir = dir;
        this.pristine = dir.resolveSibling(dir.getFileName() + ".pristine");
        copy(dir, pristine);
        try (Stream<Path> walk = Files.walk(dir))
        {
            // Not Chronicle's metadata.cq4t: with it damaged, reads waited 10 s and more in
            // Chronicle's SingleTableStore.doWithLock, retrying its file lock (an open finding:
            // BENCHMARKS.md, "Fuzzed readers").
            for (final Path file : walk.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".cq4t"))
                .sorted().toList())
            {
                final long length = Files.size(file);
                final byte[] written = written(file, length);
                files.add(new Original(file, length, written));
            }
        }
    }

    Path dir()
    {
        return dir;
    }

    /** The number of files a try may pick. */
    int fileCount()
    {
        return files.size();
    }

    /**
     * Damages file {@code index} (modulo the count) with {@code mutations}: the header as text,
     * freely; a queue file within its written bytes, keeping its length, or cut short.
     *
     * @return the bytes the damaged file holds where it was written (for the allocation bound)
     */
    long damage(final int index, final List<Mutation> mutations) throws IOException
    {
        final Original original = files.get(Math.floorMod(index, files.size()));
        if (original.file().getFileName().toString().equals(TraceLayout.HEADER_FILE))
        {
            final byte[] mutated = Mutation.applyAll(mutations, original.written());
            Files.write(original.file(), mutated);
            return mutated.length;
        }
        queueDamaged = true;
        final byte[] mutated = original.written().clone();
        long length = original.length();
        for (final Mutation mutation : mutations)
        {
            final int at = (int)(mutation.at() * mutated.length);
            switch (mutation.kind())
            {
                case TRUNCATE -> length = Math.min(length, at);
                case FLIP_BIT -> mutated[at] ^= (byte)(1 << (mutation.value() & 7));
                default ->
                {
                    // a run of one byte value, as a torn or zeroed write leaves
                    Arrays.fill(mutated, at, Math.min(mutated.length, at + mutation.length()), (byte)mutation.value());
                }
            }
        }
        try (RandomAccessFile raf = new RandomAccessFile(original.file().toFile(), "rw"))
        {
            raf.write(mutated);
            raf.setLength(length);
        }
        return mutated.length;
    }

    /**
     * Puts the directory back as it was, from a pristine copy: writing the saved bytes back was
     * not enough (a read of a damaged queue left it unreadable), and cp copies the holes of the
     * sparse queue files as holes.
     */
    void restore() throws IOException
    {
        if (!queueDamaged)
        {
            final Path header = dir.resolve(TraceLayout.HEADER_FILE);
            for (final Original original : files)
            {
                if (original.file().equals(header))
                {
                    Files.write(header, original.written());
                }
            }
            return;
        }
        queueDamaged = false;
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path file : walk.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.delete(file);
            }
        }
        copy(pristine, dir);
    }

    private static void copy(final Path from, final Path to) throws IOException
    {
        try
        {
            final int status = new ProcessBuilder("cp", "-a", "--sparse=always", from.toString(), to.toString())
                .inheritIO().start().waitFor();
            if (status != 0)
            {
                throw new IOException("cp " + from + " " + to + " failed: " + status);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException(ex);
        }
    }

    /** The bytes up to the last non-zero 4 KiB block (a header: all of it). */
    private static byte[] written(final Path file, final long length) throws IOException
    {
        final int block = 4096;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r"))
        {
            final byte[] buffer = new byte[block];
            long end = 0;
            for (long at = 0; at < length; at += block)
            {
                raf.seek(at);
                final int n = raf.read(buffer, 0, (int)Math.min(block, length - at));
                for (int i = 0; i < n; i++)
                {
                    if (buffer[i] != 0)
                    {
                        end = at + n;
                        break;
                    }
                }
            }
            final byte[] written = new byte[(int)end];
            raf.seek(0);
            raf.readFully(written);
            return written;
        }
    }
}
