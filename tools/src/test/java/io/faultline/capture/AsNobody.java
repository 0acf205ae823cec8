package io.faultline.capture;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * faultline run as an ordinary user: {@code setpriv} to nobody (uid and gid 65534, no groups),
 * with a copy of the build's classes and of the files it names, since nobody cannot read the
 * build under /root. The test must run as root (else it is skipped, with the reason).
 */
final class AsNobody
{
    static final int UID = 65534;

    private final Path dir;
    private final String classPath;

    private AsNobody(final Path dir, final String classPath)
    {
        this.dir = dir;
        this.classPath = classPath;
    }

    /** A world-writable copy of the classpath under {@code tmp}; {@code tmp} itself made world-writable. */
    static AsNobody in(final Path tmp) throws IOException, InterruptedException
    {
        assumeTrue("root".equals(System.getProperty("user.name")), "setpriv to nobody needs root");
        final Path cp = Files.createDirectories(tmp.resolve("cp"));
        final List<String> entries = new ArrayList<>();
        int i = 0;
        for (final String entry : Faultline.classPath().split(File.pathSeparator))
        {
            final Path source = Path.of(entry);
            if (!Files.exists(source))
            {
                continue;
            }
            final Path copy = cp.resolve((i++) + "-" + source.getFileName());
            if (Files.isDirectory(source))
            {
                try (Stream<Path> files = Files.walk(source))
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
        final AsNobody nobody = new AsNobody(tmp, String.join(File.pathSeparator, entries));
        nobody.openUp();
        return nobody;
    }

    /** A copy of {@code file} that nobody can run or read. */
    Path copy(final Path file) throws IOException
    {
        final Path copy = dir.resolve("bin-" + file.getFileName());
        Files.copy(file, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(copy, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        return copy;
    }

    /** faultline with these arguments, as nobody. */
    ProcessBuilder builder(final List<String> args)
    {
        final ProcessBuilder builder = Faultline.builder(args);
        builder.command().addAll(0, List.of("setpriv", "--reuid=" + UID, "--regid=" + UID, "--clear-groups"));
        builder.environment().put("FAULTLINE_CLASSPATH", classPath);
        builder.environment().put("HOME", dir.toString());
        builder.environment().put("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + dir);
        return builder;
    }

    /** What runs on a stock distribution's settings. */
    interface Body
    {
        void run() throws Exception;
    }

    /**
     * Runs {@code body} with vm.unprivileged_userfaultfd=0, as Debian, Ubuntu and Fedora ship it
     * (an ordinary user gets userfaultfd only with UFFD_USER_MODE_ONLY), and restores the setting
     * after; skipped, with the reason, where the sysctl cannot be set.
     */
    static void onStockSettings(final Body body) throws Exception
    {
        final Path sysctl = Path.of("/proc/sys/vm/unprivileged_userfaultfd");
        final String before = Files.readString(sysctl).strip();
        try
        {
            Files.writeString(sysctl, "0");
        }
        catch (final IOException ex)
        {
            assumeTrue(false, "cannot set vm.unprivileged_userfaultfd: " + ex);
        }
        try
        {
            body.run();
        }
        finally
        {
            Files.writeString(sysctl, before);
        }
    }

    /** The lines of stderr less the JVM's note of JAVA_TOOL_OPTIONS. */
    static List<String> errLines(final Faultline.Result result)
    {
        return result.err().strip().lines().filter(l -> !l.startsWith("Picked up JAVA_TOOL_OPTIONS")).toList();
    }

    private void openUp() throws IOException, InterruptedException
    {
        assertEquals(0, new ProcessBuilder("chmod", "-R", "a+rwX", dir.toString()).inheritIO().start().waitFor());
    }
}
