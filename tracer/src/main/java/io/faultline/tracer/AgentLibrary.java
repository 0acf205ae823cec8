package io.faultline.tracer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

import io.faultline.format.InputProblem;

/**
 * Finds libfaultline.so, in async-profiler's order: the {@code FAULTLINE_AGENT} environment
 * variable, the {@code faultline.agent} system property, then the copy inside the jar, extracted
 * once per content hash into {@code java.io.tmpdir/faultline-UID/HASH/}.
 *
 * <p>Each build or version of faultline extracts its own copy, so copies would pile up (54 of
 * them, 37 MB, on a developer's machine). A JVM that uses a copy holds a shared lock on it
 * ({@code fcntl}, through {@link FileChannel#lock}) until it exits: a traced program that
 * forks and execs late needs the file for its children's {@code LD_PRELOAD}. After extracting
 * its own, a JVM deletes every other copy on which it can take an exclusive lock, that is,
 * every copy no running faultline uses. The lock is taken before the file has its name (on the
 * temporary file that is then renamed) or, for a copy already there, checked to still have it
 * once locked, so a copy deleted meanwhile is extracted again.
 */
public final class AgentLibrary
{
    static final String RESOURCE = "/native/linux-x86_64/libfaultline.so";

    private AgentLibrary()
    {
    }

    public static Path locate() throws IOException
    {
        final String explicit = System.getenv("FAULTLINE_AGENT");
        if (explicit != null && !explicit.isEmpty())
        {
            return existing(Path.of(explicit), "FAULTLINE_AGENT");
        }
        final String property = System.getProperty("faultline.agent");
        if (property != null && !property.isEmpty())
        {
            return existing(Path.of(property), "-Dfaultline.agent");
        }
        return extract();
    }

    private static Path existing(final Path path, final String source)
    {
        if (!Files.isRegularFile(path))
        {
            // a file that does not exist: the CLI prints the message alone and exits 3
            throw new RecordException(source + " names " + path + ", which does not exist; point it at a"
                + " built libfaultline.so or unset it to use the agent inside the jar", InputProblem.UNREADABLE);
        }
        return path.toAbsolutePath();
    }

    private static Path extract() throws IOException
    {
        synchronized (AgentLibrary.class)
        {
            if (held != null)
            {
                return held.path; // this JVM's jar and its agent do not change
            }
        }
        final byte[] library;
        try (InputStream in = AgentLibrary.class.getResourceAsStream(RESOURCE))
        {
            if (in == null)
            {
                throw new IllegalStateException("the agent " + RESOURCE + " is not on the class path; build with mvn package");
            }
            library = in.readAllBytes();
        }
        final String hash = nameOf(library);
        final Path copies = Path.of(System.getProperty("java.io.tmpdir"), "faultline-" + Libc.INSTANCE.geteuid());
        final Path target = copies.resolve(hash).resolve(LIBRARY);
        synchronized (AgentLibrary.class)
        {
            if (held == null || !held.path.equals(target))
            {
                held = inUse(target, library);
                prune(copies, hash);
            }
        }
        return target;
    }

    private static final String LIBRARY = "libfaultline.so";

    /**
     * The name of a build's copy: two checksums of the library, 64 bits in 16 hex digits. It only
     * tells builds apart (the copy's size is compared too) and guards nothing: whoever may write
     * this user's directory could put any library there. Not SHA-256: in a JVM just started,
     * before the JIT compiles it, SHA-256 of the 1 MB library took 40 ms of every recording's
     * start; CRC32C and CRC32 are intrinsics from the first call (1.4 ms).
     */
    static String nameOf(final byte[] library)
    {
        final CRC32C c = new CRC32C();
        c.update(library, 0, library.length);
        final CRC32 d = new CRC32();
        d.update(library, 0, library.length);
        final String hex = Long.toHexString(c.getValue() << 32 | d.getValue());
        return "0".repeat(16 - hex.length()) + hex;
    }

    /** The copy this JVM uses, locked shared for the JVM's life (the lock goes with the process). */
    private record Held(Path path, FileChannel channel, FileLock lock)
    {
    }

    private static Held held;

    private static Held inUse(final Path target, final byte[] library) throws IOException
    {
        for (int attempt = 0; attempt < 5; attempt++)
        {
            if (Files.isRegularFile(target) && Files.size(target) == library.length)
            {
                final FileChannel channel = FileChannel.open(target, StandardOpenOption.READ);
                final FileLock lock = channel.lock(0, Long.MAX_VALUE, true);
                if (Files.isRegularFile(target))
                {
                    return new Held(target, channel, lock);
                }
                channel.close(); // deleted by another JVM's prune before our lock: extract again
                continue;
            }
            try
            {
                Files.createDirectories(target.getParent());
                final Path tmp = Files.createTempFile(target.getParent(), "libfaultline", ".tmp");
                Files.write(tmp, library);
                final FileChannel channel = FileChannel.open(tmp, StandardOpenOption.READ);
                final FileLock lock = channel.lock(0, Long.MAX_VALUE, true);
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                return new Held(target, channel, lock);
            }
            catch (final java.nio.file.FileSystemException ex)
            {
                // another faultline of another build pruned this directory between our steps
                // (its prune deletes the library, then the directory): extract again
                if (attempt == 4)
                {
                    throw ex;
                }
            }
        }
        throw new IOException("cannot keep a copy of the agent in " + target.getParent() + ": it was deleted five "
            + "times while being locked");
    }

    /** Deletes every other copy that no running JVM holds; a copy in use, or one we cannot delete, stays. */
    private static void prune(final Path copies, final String keep)
    {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(copies))
        {
            for (final Path dir : dirs)
            {
                if (!dir.getFileName().toString().equals(keep) && Files.isDirectory(dir))
                {
                    pruneCopy(dir);
                }
            }
        }
        catch (final IOException ex)
        {
            // a directory we cannot list: the copies stay, which costs disk space only
        }
    }

    private static void pruneCopy(final Path dir)
    {
        final Path library = dir.resolve(LIBRARY);
        try
        {
            if (Files.isRegularFile(library))
            {
                try (FileChannel channel = FileChannel.open(library, StandardOpenOption.WRITE);
                    FileLock lock = channel.tryLock())
                {
                    if (lock == null)
                    {
                        return; // a running faultline uses it
                    }
                    Files.delete(library);
                }
            }
            try (DirectoryStream<Path> left = Files.newDirectoryStream(dir, "libfaultline*.tmp"))
            {
                for (final Path tmp : left)
                {
                    // an extraction that died halfway; one under way is younger than a minute
                    if (Files.getLastModifiedTime(tmp).toMillis() < System.currentTimeMillis() - 60_000)
                    {
                        Files.delete(tmp);
                    }
                }
            }
            Files.delete(dir);
        }
        catch (final IOException | java.nio.channels.OverlappingFileLockException ex)
        {
            // not empty, locked, or not ours to delete: it stays
        }
    }
}
