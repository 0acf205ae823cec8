package io.faultline.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher finds its checkout (the JVM flags, the jar) however it is named: by its absolute
 * path, through a user's symlink in another directory, and by a relative path with {@code ..}.
 * It resolves the path with a fork only where it must (a symlink, a relative or dotted path).
 */
class LauncherPathTest
{
    @TempDir
    Path tmp;

    private static Faultline.Result version(final String launcher, final Path dir) throws Exception
    {
        final ProcessBuilder builder = Faultline.builder(List.of("--version"));
        final List<String> command = new ArrayList<>(builder.command());
        command.set(0, launcher);
        builder.command(command).directory(dir.toFile());
        return Faultline.finish(builder, 60);
    }

    private static void assertStarted(final Faultline.Result r)
    {
        assertEquals(0, r.status(), r.describe());
        assertTrue(r.out().startsWith("faultline "), r.describe());
    }

    @Test
    void byItsPath() throws Exception
    {
        assertStarted(version(Faultline.ROOT.resolve("faultline").toString(), tmp));
    }

    @Test
    void throughASymlinkElsewhere() throws Exception
    {
        final Path link = Files.createSymbolicLink(tmp.resolve("fl"), Faultline.ROOT.resolve("faultline"));
        assertStarted(version(link.toString(), tmp));
    }

    @Test
    void byARelativePathWithDotDot() throws Exception
    {
        final Path root = Faultline.ROOT.toAbsolutePath();
        final String relative = "../" + root.getFileName() + "/faultline";
        assertStarted(version(relative, root));
    }
}
