package io.faultline.tracer;

import io.faultline.format.JvmFlags;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line of a recorder JVM that a Java program starts itself: the Java API's
 * {@link AttachedRecorder}, the JMH profiler's {@link Recorder}. Chronicle Queue and Agrona
 * need {@link JvmFlags} on Java 17 (which the {@code faultline} launcher and the build pass too).
 */
public final class RecorderJvm
{
    /** Chronicle Queue's and Agrona's flags on Java 17: trace-format's one list ({@link JvmFlags}). */
    public static final List<String> CHRONICLE_FLAGS = JvmFlags.list();

    private RecorderJvm()
    {
    }

    /** java (this JVM's), the flags, this JVM's class path, then {@code mainClass} and its arguments. */
    public static List<String> command(final Class<?> mainClass, final List<String> args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.addAll(CHRONICLE_FLAGS);
        command.add("-cp");
        command.add(classPath());
        command.add(mainClass.getName());
        command.addAll(args);
        return command;
    }

    /**
     * This JVM's class path, and first the jar or folder holding the recorder: under a custom
     * class loader java.class.path may not name it. The recorder needs trace-format, Agrona,
     * Chronicle Queue and JNA as well: with Maven they are on java.class.path; the launcher's
     * jar (faultline.jar) and a shaded benchmarks jar hold them all.
     */
    static String classPath()
    {
        final Set<String> entries = new LinkedHashSet<>();
        try
        {
            entries.add(Path.of(RecorderJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString());
        }
        catch (final URISyntaxException | NullPointerException | SecurityException ex)
        {
            // java.class.path alone, then
        }
        for (final String entry : System.getProperty("java.class.path", "").split(File.pathSeparator))
        {
            if (!entry.isEmpty())
            {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
