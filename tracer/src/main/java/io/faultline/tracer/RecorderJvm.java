package io.faultline.tracer;

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
 * need the flags below on Java 17 (the {@code faultline} launcher and the build pass the same).
 */
public final class RecorderJvm
{
    public static final List<String> CHRONICLE_FLAGS = List.of(
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.util=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
        "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED",
        "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true");

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
