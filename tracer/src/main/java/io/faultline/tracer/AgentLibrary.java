package io.faultline.tracer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Finds libfaultline.so, in async-profiler's order: the {@code FAULTLINE_AGENT} environment
 * variable, the {@code faultline.agent} system property, then the copy inside the jar, extracted
 * once per content hash into a private temporary directory.
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
            // bad input (the user's environment): the CLI prints the message alone and exits 2
            throw new IllegalArgumentException(source + " names " + path + ", which does not exist; point it at a"
                + " built libfaultline.so or unset it to use the agent inside the jar");
        }
        return path.toAbsolutePath();
    }

    private static Path extract() throws IOException
    {
        final byte[] library;
        try (InputStream in = AgentLibrary.class.getResourceAsStream(RESOURCE))
        {
            if (in == null)
            {
                throw new IllegalStateException("the agent " + RESOURCE + " is not on the class path; build with mvn package");
            }
            library = in.readAllBytes();
        }
        final String hash;
        try
        {
            hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(library)).substring(0, 16);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
        final Path dir = Path.of(System.getProperty("java.io.tmpdir"), "faultline-" + Libc.INSTANCE.geteuid(), hash);
        final Path target = dir.resolve("libfaultline.so");
        if (!Files.isRegularFile(target) || Files.size(target) != library.length)
        {
            Files.createDirectories(dir);
            final Path tmp = Files.createTempFile(dir, "libfaultline", ".tmp");
            Files.write(tmp, library);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return target;
    }
}
