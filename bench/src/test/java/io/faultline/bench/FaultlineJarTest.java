package io.faultline.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.tools.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's jar, tools/target/faultline.jar (built before this module in the reactor), is
 * all a user needs for the Java API: it holds the API, the JMH profiler and the agent, {@code
 * javac -cp faultline.jar} compiles a program against it, and {@code java -cp faultline.jar:.}
 * runs it with no LD_PRELOAD and no JVM flag (the agent comes out of the jar).
 */
class FaultlineJarTest
{
    private static final Path JAR = findJar();

    @TempDir
    Path tmp;

    private static Path findJar()
    {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("tools/target/faultline.jar")))
        {
            dir = dir.getParent();
        }
        if (dir == null)
        {
            throw new IllegalStateException("no tools/target/faultline.jar above " + Path.of("").toAbsolutePath()
                + "; build it with mvn package");
        }
        return dir.resolve("tools/target/faultline.jar");
    }

    private static String run(final Path workDir, final List<String> command) throws IOException, InterruptedException
    {
        final ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        builder.environment().remove("LD_PRELOAD");
        builder.environment().remove("FAULTLINE_AGENT");
        final Process process = builder.start();
        final byte[] out;
        try (InputStream in = process.getInputStream())
        {
            out = in.readAllBytes();
        }
        assertTrue(process.waitFor(300, TimeUnit.SECONDS), command.toString());
        final String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), command + "\n" + text);
        return text;
    }

    @Test
    void holdsTheApiTheProfilerAndTheAgent() throws IOException
    {
        try (JarFile jar = new JarFile(JAR.toFile()))
        {
            for (final String entry : List.of("io/faultline/api/Faultline.class", "io/faultline/api/Recording.class",
                "io/faultline/api/RecordOptions.class", "io/faultline/api/FaultlineException.class",
                "io/faultline/jmh/FaultlineProfiler.class", "native/linux-x86_64/libfaultline.so"))
            {
                assertNotNull(jar.getEntry(entry), entry + " in " + JAR);
            }
        }
    }

    @Test
    void aProgramCompiledAgainstTheJarAloneTracesItsBuffer() throws Exception
    {
        final Path source = tmp.resolve("SweepTwice.java");
        try (InputStream in = getClass().getResourceAsStream("/api-user/SweepTwice.java"))
        {
            Files.write(source, in.readAllBytes());
        }
        final String bin = Path.of(System.getProperty("java.home"), "bin").toString();
        run(tmp, List.of(bin + "/javac", "-cp", JAR.toString(), "-d", tmp.toString(), source.toString()));
        final Path trace = tmp.resolve("trace");
        // 24 pages, an EVMS of 16: every write of both sweeps finds its page disabled (FIFO)
        final String out = run(tmp, List.of(bin + "/java", "-cp", JAR + ":" + tmp, "SweepTwice", trace.toString(), "16",
            "24"));
        assertTrue(out.contains("references=48"), out);
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertTrue(header.isComplete(), header.values().toString());
        assertEquals(48, header.longValue(TraceHeader.WRITES));
        assertEquals(0, header.longValue(TraceHeader.READS));
        assertEquals(24, header.longValue(TraceHeader.DISTINCT_PAGES));

        final ByteArrayOutputStream info = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"info", trace.toString()}, new PrintStream(info, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)), err.toString(StandardCharsets.UTF_8));
        assertTrue(info.toString(StandardCharsets.UTF_8).contains("scope api"), info.toString(StandardCharsets.UTF_8));
    }
}
