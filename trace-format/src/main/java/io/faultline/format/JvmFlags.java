package io.faultline.format;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The flags a JVM that reads or writes traces needs on Java 17: Chronicle Queue and Agrona reach
 * into JDK internals (docs/ARCHITECTURE.md, "Java 17 flags"). Defined once, in the resource
 * {@code jvm.flags} beside this class, a java argument file ({@code java @FILE}: one argument per
 * line, {@code #} comment lines), which the launcher and the build's test JVMs pass as it is and
 * the JVMs a Java program starts for itself take from here ({@code RecorderJvm}).
 */
public final class JvmFlags
{
    /** The argument file's path in a checkout, from the repository root. */
    public static final String SOURCE = "trace-format/src/main/resources/io/faultline/format/jvm.flags";

    private static final List<String> FLAGS = read();

    private JvmFlags()
    {
    }

    /** The flags, in the file's order. */
    public static List<String> list()
    {
        return FLAGS;
    }

    private static List<String> read()
    {
        try (InputStream in = JvmFlags.class.getResourceAsStream("jvm.flags"))
        {
            if (in == null)
            {
                throw new IllegalStateException("jvm.flags is missing beside " + JvmFlags.class.getName());
            }
            final List<String> flags = new ArrayList<>();
            final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine())
            {
                final String flag = line.strip();
                if (!flag.isEmpty() && !flag.startsWith("#"))
                {
                    flags.add(flag);
                }
            }
            return List.copyOf(flags);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
