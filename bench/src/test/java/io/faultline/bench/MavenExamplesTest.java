package io.faultline.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.tools.Main;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Java user of faultline, as README.md's "Java API" and "JMH" sections tell one to be: the
 * README's own command lines, read out of README.md and run as they are, in a copy of this
 * checkout as the build left it. The install step puts faultline's artifacts into a Maven
 * repository of this test's (bench/target/maven-examples/repository, never the user's
 * ~/.m2); examples/java-api then builds against them and traces its buffer, and examples/jmh
 * builds and runs its benchmark under the profiler in a plain {@code java -jar}, without the
 * JVM flags Chronicle Queue needs.
 * <p>
 * Offline, from what this build resolved: the copy's {@code .mvn/maven.config} runs every mvn
 * with {@code -o}, its own {@code -Dmaven.repo.local}, and a mirror of every repository that
 * is this build's local repository as a {@code file:} URL (the only protocol allowed offline),
 * so that plugins and dependencies are copied from there and nothing is downloaded. About 35 s
 * on the 2-core machine of BENCHMARKS.md, most of it in four Maven runs.
 */
class MavenExamplesTest
{
    private static final Path ROOT = root();
    private static final Path WORK = ROOT.resolve("bench/target/maven-examples");
    private static final Path CHECKOUT = WORK.resolve("checkout");
    private static final Path REPOSITORY = WORK.resolve("repository");
    private static final String VERSION = version();

    private static Path root()
    {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("examples"))))
        {
            dir = dir.getParent();
        }
        if (dir == null)
        {
            throw new IllegalStateException("no README.md and examples/ above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    private static String version()
    {
        try
        {
            final Matcher m = Pattern.compile("<artifactId>faultline-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(ROOT.resolve("pom.xml")));
            assertTrue(m.find(), "the parent pom's version");
            return m.group(1);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** The one line of README.md's indented examples that starts with {@code prefix}, as a shell runs it. */
    private static String readmeCommand(final String prefix) throws IOException
    {
        final List<String> lines = Files.readAllLines(ROOT.resolve("README.md")).stream()
            .filter(line -> line.startsWith("    ")).map(String::strip).filter(line -> line.startsWith(prefix)).toList();
        assertEquals(1, lines.size(), "README.md shows one command starting '" + prefix + "': " + lines);
        return lines.get(0);
    }

    @BeforeAll
    static void copyTheCheckout() throws IOException
    {
        deleteTree(CHECKOUT);
        Files.createDirectories(CHECKOUT);
        Files.copy(ROOT.resolve("pom.xml"), CHECKOUT.resolve("pom.xml"), StandardCopyOption.COPY_ATTRIBUTES);
        // every module's POM (Maven reads them all), and whole the modules the install builds,
        // with what the build left in their target/ and its times, as a user's checkout after it
        try (Stream<Path> entries = Files.list(ROOT))
        {
            for (final Path module : entries.filter(dir -> Files.isRegularFile(dir.resolve("pom.xml"))).toList())
            {
                final Path copy = CHECKOUT.resolve(module.getFileName().toString());
                if (List.of("native-shims", "trace-format", "tracer", "api").contains(module.getFileName().toString()))
                {
                    copyTree(module, copy, List.of());
                }
                else
                {
                    Files.createDirectories(copy);
                    Files.copy(module.resolve("pom.xml"), copy.resolve("pom.xml"), StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        copyTree(ROOT.resolve("examples"), CHECKOUT.resolve("examples"), List.of("target", "trace", "traces"));
        final Path built = Path.of(System.getProperty("faultline.build.repository",
            Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
        Files.writeString(CHECKOUT.resolve("settings.xml"), "<settings><mirrors><mirror><id>this-build</id>"
            + "<mirrorOf>*</mirrorOf><url>" + built.toUri() + "</url></mirror></mirrors></settings>\n");
        Files.createDirectories(CHECKOUT.resolve(".mvn"));
        Files.writeString(CHECKOUT.resolve(".mvn/maven.config"), String.join(" ", "-B", "-Dstyle.color=never", "-o",
            "-Daether.offline.protocols=file", "-Dmaven.repo.local=" + REPOSITORY, "-s", CHECKOUT.resolve("settings.xml")
                .toString()) + "\n");
        final Run install = run(readmeCommand("mvn -q install"));
        assertEquals(0, install.status(), install.toString());
    }

    @Test
    void theReadmesInstallStepInstallsWhatAJavaUserDependsOn() throws IOException
    {
        final String readme = Files.readString(ROOT.resolve("README.md"));
        assertTrue(readme.contains("<groupId>io.faultline</groupId>\n  <artifactId>api</artifactId>\n  <version>" + VERSION
            + "</version>"), "README.md's dependency names the version, " + VERSION);
        for (final String artifact : List.of("api", "tracer", "trace-format", "native-shims"))
        {
            final Path dir = REPOSITORY.resolve("io/faultline/" + artifact + "/" + VERSION);
            assertTrue(Files.isRegularFile(dir.resolve(artifact + "-" + VERSION + ".jar")), dir.toString());
            assertTrue(Files.isRegularFile(dir.resolve(artifact + "-" + VERSION + ".pom")), dir.toString());
        }
        assertTrue(Files.isRegularFile(REPOSITORY.resolve("io/faultline/faultline-parent/" + VERSION + "/faultline-parent-"
            + VERSION + ".pom")));
    }

    /**
     * ReadThenWrite reads each of 64 pages and then writes it, with an EVMS of 16: each page
     * faults once, on its read, and each leaves the EVMS written.
     */
    @Test
    void theJavaApiExampleBuildsAgainstThemAndTracesItsBuffer() throws IOException
    {
        final Run run = run(readmeCommand("cd examples/java-api &&"));
        assertEquals(0, run.status(), run.toString());
        assertEquals("Summary[directory=trace, references=64, readFaults=64, writeFaults=0, distinctPages=64, "
            + "writtenPages=64, ringWaits=0]\n", run.out(), run.toString());
        final Path trace = CHECKOUT.resolve("examples/java-api/trace");
        assertTrue(TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE)).isComplete());
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"info", trace.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
        final String info = out.toString(StandardCharsets.UTF_8);
        assertTrue(info.contains("references      64 (read faults 64, write faults 0)"), info);
        assertTrue(info.contains("pages written   64 of them (256.0 KiB), by the dirty tags of their eviction records"),
            info);
    }

    /**
     * The benchmark writes 1,024 pages per operation, twice the EVMS, so that each operation
     * traps each page: the fork, started under faultline record by the profiler, counts at
     * least that many per operation in its measurement iterations, and the host JVM, a plain
     * java -jar, reads the trace through a JVM of its own with Chronicle's flags.
     */
    @Test
    void theJmhExampleRunsUnderTheProfilerAsTheReadmeShowsIt() throws IOException
    {
        final Run run = run(readmeCommand("cd examples/jmh &&"));
        assertEquals(0, run.status(), run.toString());
        final Matcher refsPerOp = Pattern.compile("Touch.everyPage:faultline.refs/op\\s+avgt\\s+([0-9.]+)")
            .matcher(run.out());
        assertTrue(refsPerOp.find(), run.toString());
        assertTrue(Double.parseDouble(refsPerOp.group(1)) >= 1024, run.toString());
        for (final String result : List.of("faultline.read_faults", "faultline.write_faults", "faultline.written_pages",
            "faultline.pages", "faultline.ring_waits"))
        {
            assertTrue(run.out().contains("Touch.everyPage:" + result + " "), result + " in " + run);
        }
        final List<Path> traces;
        try (Stream<Path> files = Files.list(CHECKOUT.resolve("examples/jmh/traces")))
        {
            traces = files.filter(Files::isDirectory).toList();
        }
        assertEquals(1, traces.size(), traces.toString());
        assertTrue(TraceHeader.read(traces.get(0).resolve(TraceLayout.HEADER_FILE)).isComplete());
    }

    private record Run(int status, String out, String command)
    {
        @Override
        public String toString()
        {
            return command + "\nexit status " + status + "\n" + out;
        }
    }

    /** {@code command} in bash, in the copy, as a user of this checkout runs it; stdout and stderr. */
    private static Run run(final String command) throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder("bash", "-c", command).directory(CHECKOUT.toFile())
            .redirectErrorStream(true);
        final Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("FAULTLINE_") || name.equals("LD_PRELOAD")
            || name.equals("MAVEN_ARGS") || name.equals("JAVA_TOOL_OPTIONS"));
        final Process process = builder.start();
        final byte[] out;
        try (InputStream in = process.getInputStream())
        {
            out = in.readAllBytes();
        }
        try
        {
            if (!process.waitFor(600, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
            }
            // Maven's colour resets, which some builds of it print even in batch mode
            return new Run(process.waitFor(), new String(out, StandardCharsets.UTF_8).replaceAll("\u001B\\[[0-9;]*m", ""),
                command);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException(ex);
        }
    }

    /** Copies {@code from} to {@code to} with the files' times, leaving out directories named in {@code skip}. */
    private static void copyTree(final Path from, final Path to, final List<String> skip) throws IOException
    {
        Files.walkFileTree(from, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult preVisitDirectory(final Path dir, final BasicFileAttributes attrs) throws IOException
            {
                if (!dir.equals(from) && skip.contains(dir.getFileName().toString()))
                {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException
            {
                Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES,
                    LinkOption.NOFOLLOW_LINKS);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        final List<Path> all = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir))
        {
            files.forEach(all::add);
        }
        for (int i = all.size() - 1; i >= 0; i--)
        {
            Files.delete(all.get(i));
        }
    }
}
