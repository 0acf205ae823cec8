package io.faultline.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;

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

    /** What a command printed (stdout and stderr together) and its exit status. */
    private record Ran(int status, String text)
    {
    }

    private static Ran exec(final Path workDir, final List<String> command) throws IOException, InterruptedException
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
        return new Ran(process.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static String run(final Path workDir, final List<String> command) throws IOException, InterruptedException
    {
        final Ran ran = exec(workDir, command);
        assertEquals(0, ran.status(), command + "\n" + ran.text());
        return ran.text();
    }

    /** Compiles the test resource api-user/NAME.java against the jar alone, into tmp. */
    private void compile(final String name) throws IOException, InterruptedException
    {
        final Path source = tmp.resolve(name + ".java");
        try (InputStream in = getClass().getResourceAsStream("/api-user/" + name + ".java"))
        {
            Files.write(source, in.readAllBytes());
        }
        run(tmp, List.of(Path.of(System.getProperty("java.home"), "bin", "javac").toString(), "-cp", JAR.toString(), "-d",
            tmp.toString(), source.toString()));
    }

    private static String java()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
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
        compile("SweepTwice");
        final Path trace = tmp.resolve("trace");
        // 24 pages, an EVMS of 16: every write of both sweeps finds its page disabled (FIFO)
        final String out = run(tmp, List.of(java(), "-cp", JAR + ":" + tmp, "SweepTwice", trace.toString(), "16",
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
    /**
     * DuckDB's engine lies beside the jar, not in it: {@code sql} loads it from there in place, so
     * nothing is copied into the temporary directory (from the jar, 71 MB were at every start);
     * a jar moved without it gets one line that says what is missing, no stack trace.
     */
    @Test
    void sqlLoadsDuckDbsEngineFromBesideTheJar() throws Exception
    {
        final Path engine = JAR.resolveSibling("libduckdb_java.so_linux_amd64");
        assertTrue(Files.isRegularFile(engine), engine + ": the build puts DuckDB's engine beside the jar");
        try (JarFile jar = new JarFile(JAR.toFile()))
        {
            assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("libduckdb_java")), "an engine inside " + JAR);
        }
        final Path trace = tmp.resolve("true-trace");
        run(tmp, List.of(java(), "-jar", JAR.toString(), "record", "-q", "-o", trace.toString(), "--", "true"));
        final long references = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE)).longValue(TraceHeader.REFERENCES);
        final Path scratch = Files.createDirectory(tmp.resolve("scratch"));
        final String out = run(tmp, List.of(java(), "-Djava.io.tmpdir=" + scratch, "-jar", JAR.toString(), "sql", "--csv",
            trace.toString(), "SELECT count(*) AS n FROM refs"));
        assertTrue(out.contains("n\n" + references + "\n"), out);
        try (Stream<Path> left = Files.list(scratch))
        {
            assertEquals(List.of(), left.map(p -> p.getFileName().toString()).filter(n -> n.contains("duckdb")).toList());
        }

        final Path alone = Files.createDirectory(tmp.resolve("alone"));
        final Path moved = Files.copy(JAR, alone.resolve("faultline.jar"));
        final Ran missing = exec(tmp, List.of(java(), "-jar", moved.toString(), "sql", trace.toString(), "SELECT 1"));
        assertEquals(2, missing.status(), missing.text());
        assertEquals("faultline sql: DuckDB's native engine is missing: " + alone.resolve("libduckdb_java.so_linux_amd64")
            + " is not there; the build puts it beside faultline.jar (mvn -q package -DskipTests), so keep the two "
            + "together\n", missing.text());
    }

    /**
     * zstd-jni's library beside the jar, which start-up points zstd-jni at (loaded in place, not
     * copied out of the jar each run); the jar keeps its own for a jar used alone.
     */
    @Test
    void startUpLoadsZstdFromBesideTheJar() throws Exception
    {
        compile("ZstdWhere");
        final String beside;
        try (DirectoryStream<Path> libs = Files.newDirectoryStream(JAR.getParent(), "libzstd-jni-*.so"))
        {
            final List<Path> found = new ArrayList<>();
            libs.forEach(found::add);
            assertEquals(1, found.size(), "zstd-jni's library beside " + JAR + ": " + found);
            beside = found.get(0).toString();
        }
        final String out = run(tmp, List.of(java(), "-cp", JAR + ":" + tmp, "ZstdWhere"));
        assertTrue(out.contains("ZstdNativePath=" + beside + "\n") && out.contains("compressed "), out);

        final Path alone = Files.createDirectory(tmp.resolve("zstd-alone"));
        final Path moved = Files.copy(JAR, alone.resolve("faultline.jar"));
        final String fallback = run(tmp, List.of(java(), "-cp", moved + ":" + tmp, "ZstdWhere"));
        assertTrue(fallback.contains("ZstdNativePath=null\n") && fallback.contains("compressed "), fallback);
    }
}
