package io.faultline.tracer;

import java.nio.file.Path;
import java.util.List;

/**
 * The JVM flags Chronicle Queue and Agrona need on Java 17, for the JVMs faultline starts itself
 * (the Java API's recorder process, the JMH profiler's recorder). The {@code faultline} launcher
 * and the build pass the same list.
 */
public final class JvmFlags
{
    public static final List<String> CHRONICLE = List.of(
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

    private JvmFlags()
    {
    }

    /** The java executable of this JVM. */
    public static String javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
