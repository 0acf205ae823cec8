package io.faultline.sweep;

import io.faultline.tools.Main;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** One run of faultline's {@link Main#run}, as the launcher would, with its output captured. */
record Run(int status, String out, String err)
{
    static Run of(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A trace of sim's test resources (the LIRS project's, libCacheSim's): sim/src/test/resources/traces. */
    static Path trace(final String name)
    {
        try
        {
            // target/test-classes of this module, then up to the repository.
            final Path classes = Path.of(Run.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return classes.getParent().getParent().getParent().resolve("sim/src/test/resources/traces").resolve(name);
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public String toString()
    {
        return "status " + status + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }

    static String read(final Path file) throws IOException
    {
        return java.nio.file.Files.readString(file);
    }
}
