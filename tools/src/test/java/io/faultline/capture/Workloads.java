package io.faultline.capture;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** C workloads in src/test/resources/workloads, compiled with gcc once per test run. */
final class Workloads
{
    private static final Path DIR = Faultline.ROOT.resolve("tools/target/workloads");
    private static final ConcurrentHashMap<String, Path> BUILT = new ConcurrentHashMap<>();

    private Workloads()
    {
    }

    /** Builds workload {@code name} (name.c) with extra gcc flags; returns the executable. */
    static Path build(final String name, final String... flags)
    {
        final String key = name + String.join("", flags);
        return BUILT.computeIfAbsent(key, k -> compile(name, k.replaceAll("[^A-Za-z0-9_.-]", "_"), flags));
    }

    private static Path compile(final String name, final String output, final String... flags)
    {
        try
        {
            Files.createDirectories(DIR);
            final Path source = DIR.resolve(name + ".c");
            try (InputStream in = Workloads.class.getResourceAsStream("/workloads/" + name + ".c"))
            {
                if (in == null)
                {
                    throw new IllegalStateException("no workload source " + name + ".c");
                }
                Files.write(source, in.readAllBytes());
            }
            final Path executable = DIR.resolve(output);
            final List<String> command = new ArrayList<>(List.of("gcc", "-O1", "-g", "-Wall",
                "-I" + Faultline.ROOT.resolve("native-shims/include"), "-o", executable.toString(), source.toString()));
            command.addAll(List.of(flags));
            command.add("-lpthread");
            final Process gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String log = new String(gcc.getInputStream().readAllBytes());
            if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0)
            {
                throw new IllegalStateException("gcc failed for " + name + ": " + log);
            }
            return executable;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
