package io.faultline.tools;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.faultline.tracer.RecorderJvm;

/**
 * Builds the class-data sharing archive the {@code faultline} launcher starts from (AppCDS, JEP
 * 310): the build runs this after it has made faultline.jar. It runs the commands whose start-up
 * matters most ({@code --version}, {@code --help}, {@code record} of {@code true}, {@code info}
 * and {@code dump} of that trace), each as the launcher would, with {@code
 * -XX:DumpLoadedClassList}; then dumps every class they loaded, parsed and verified, into one
 * archive that the JVM maps at start instead of reading those classes out of the jar
 * (BENCHMARKS.md, "Start-up").
 * <p>
 * The archive serves only the JVM that made it and the jar it was made from (same path, size
 * and time); the JVM checks both and otherwise starts without it, and the launcher silences what
 * it would say. Nothing here may fail the build: a command that cannot run here (no way to
 * record on the build machine) leaves its classes out, and an archive that cannot be made is
 * simply absent. What happened is in {@code faultline.jsa.log} beside the jar.
 *
 * <pre>java -cp faultline.jar io.faultline.tools.StartupArchive faultline.jar faultline.jsa</pre>
 */
public final class StartupArchive
{
    private static final long COMMAND_TIMEOUT_S = 120;

    private StartupArchive()
    {
    }

    public static void main(final String[] args) throws IOException, InterruptedException
    {
        if (args.length != 2)
        {
            System.err.println("usage: java -cp faultline.jar io.faultline.tools.StartupArchive JAR ARCHIVE");
            System.exit(ExitStatus.USAGE);
        }
        final Path jar = Path.of(args[0]).toAbsolutePath();
        final Path archive = Path.of(args[1]).toAbsolutePath();
        final Path log = archive.resolveSibling(archive.getFileName() + ".log");
        Files.deleteIfExists(archive);
        Files.writeString(log, "");
        final Path work = Files.createTempDirectory("faultline-startup-");
        try
        {
            final Path trace = work.resolve("trace");
            final List<List<String>> trainings = List.of(List.of("--version"), List.of("--help"),
                List.of("record", "--help"), List.of("record", "-q", "-o", trace.toString(), "--", "true"),
                List.of("info", trace.toString()), List.of("dump", trace.toString()));
            final Set<String> classes = new LinkedHashSet<>();
            for (int i = 0; i < trainings.size(); i++)
            {
                final Path list = work.resolve(i + ".classlist");
                final List<String> command = java(jar);
                command.add("-XX:DumpLoadedClassList=" + list);
                command.add(Main.class.getName());
                command.addAll(trainings.get(i));
                run(command, log);
                if (Files.isRegularFile(list))
                {
                    classes.addAll(loaded(list));
                }
            }
            final Path list = work.resolve("faultline.classlist");
            Files.write(list, classes);
            final List<String> dump = java(jar);
            dump.add(1, "-Xshare:dump");
            dump.add(2, "-XX:SharedClassListFile=" + list);
            dump.add(3, "-XX:SharedArchiveFile=" + archive);
            if (run(dump, log) != 0)
            {
                Files.deleteIfExists(archive);
            }
        }
        finally
        {
            try (Stream<Path> files = Files.walk(work))
            {
                for (final Path file : files.sorted((a, b) -> b.compareTo(a)).toList())
                {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /** This JVM's java with the launcher's flags and the jar as the class path. */
    private static List<String> java(final Path jar)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(RecorderJvm.CHRONICLE_FLAGS);
        command.add("-cp");
        command.add(jar.toString());
        return command;
    }

    /**
     * The classes of one list. Lambda proxies ({@code @lambda-proxy} lines) are left out: the
     * JDK 17 of the build machine (17.0.15) crashed dumping one whose interface it had excluded.
     */
    private static List<String> loaded(final Path list) throws IOException
    {
        return Files.readAllLines(list, StandardCharsets.UTF_8).stream()
            .filter(line -> !line.startsWith("#") && !line.startsWith("@lambda-proxy") && !line.isBlank()).toList();
    }

    private static int run(final List<String> command, final Path log) throws IOException, InterruptedException
    {
        Files.writeString(log, String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.APPEND);
        final Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).redirectInput(new File("/dev/null"))
            .start();
        if (!process.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            process.waitFor();
            return -1;
        }
        return process.exitValue();
    }
}
