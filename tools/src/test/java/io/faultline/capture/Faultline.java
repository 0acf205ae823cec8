package io.faultline.capture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code ./faultline} launcher in a separate process, on the classes of this build
 * (FAULTLINE_CLASSPATH), as a user would, and captures what it printed and its exit status.
 */
final class Faultline
{
    static final Path ROOT = findRoot();

    /** What a finished process produced. */
    record Result(int status, String out, String err)
    {
        String describe()
        {
            return "status " + status + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    private Faultline()
    {
    }

    private static Path findRoot()
    {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isExecutable(dir.resolve("faultline")))
        {
            dir = dir.getParent();
        }
        if (dir == null)
        {
            throw new IllegalStateException("cannot find the ./faultline launcher above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    static String classPath()
    {
        final String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isEmpty() ? surefire : System.getProperty("java.class.path");
    }

    static ProcessBuilder builder(final List<String> args)
    {
        final List<String> command = new ArrayList<>();
        command.add(ROOT.resolve("faultline").toString());
        command.addAll(args);
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("FAULTLINE_CLASSPATH", classPath());
        builder.environment().remove("LD_PRELOAD");
        return builder;
    }

    /**
     * The launcher with {@code args} as user nobody (setpriv), with the environment it needs:
     * the build's jars live under /root, which nobody cannot read, so it gets a copy of the class
     * path in {@code tmp}, which is opened to everyone. Run it with {@link #exec(List, int, java.util.Map)}.
     */
    static ProcessBuilder asNobody(final Path tmp, final List<String> args) throws IOException, InterruptedException
    {
        final Path cp = Files.createDirectories(tmp.resolve("cp"));
        final List<String> entries = new ArrayList<>();
        int i = 0;
        for (final String entry : classPath().split(java.io.File.pathSeparator))
        {
            final Path source = Path.of(entry);
            if (!Files.exists(source))
            {
                continue;
            }
            final Path copy = cp.resolve((i++) + "-" + source.getFileName());
            if (Files.isDirectory(source))
            {
                try (java.util.stream.Stream<Path> files = Files.walk(source))
                {
                    for (final Path f : files.toList())
                    {
                        Files.copy(f, copy.resolve(source.relativize(f).toString()));
                    }
                }
            }
            else
            {
                Files.copy(source, copy);
            }
            entries.add(copy.toString());
        }
        final int chmod = new ProcessBuilder("chmod", "-R", "a+rwX", tmp.toString()).inheritIO().start().waitFor();
        if (chmod != 0)
        {
            throw new IOException("chmod -R a+rwX " + tmp + " failed: " + chmod);
        }
        final ProcessBuilder builder = builder(args);
        builder.command().addAll(0, List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
        builder.environment().put("FAULTLINE_CLASSPATH", String.join(java.io.File.pathSeparator, entries));
        builder.environment().put("HOME", tmp.toString());
        builder.environment().put("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + tmp);
        return builder;
    }

    static Result run(final String... args) throws IOException, InterruptedException
    {
        return run(List.of(args), 120);
    }

    static Result run(final List<String> args, final int timeoutSeconds) throws IOException, InterruptedException
    {
        return finish(builder(args), timeoutSeconds);
    }

    /** Runs any command (a native run for comparison) the same way. */
    static Result exec(final List<String> command, final int timeoutSeconds) throws IOException, InterruptedException
    {
        return finish(new ProcessBuilder(command), timeoutSeconds);
    }

    /** Runs any command with exactly the given environment. */
    static Result exec(final List<String> command, final int timeoutSeconds, final java.util.Map<String, String> env)
        throws IOException, InterruptedException
    {
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().putAll(env);
        return finish(builder, timeoutSeconds);
    }

    static Result finish(final ProcessBuilder builder, final int timeoutSeconds)
        throws IOException, InterruptedException
    {
        final Path out = Files.createTempFile("faultline-out", ".txt");
        final Path err = Files.createTempFile("faultline-err", ".txt");
        try
        {
            builder.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
            final Process process = builder.start();
            process.getOutputStream().close();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
            {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new AssertionError("timed out after " + timeoutSeconds + " s: " + builder.command()
                    + "\n--- stderr\n" + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
