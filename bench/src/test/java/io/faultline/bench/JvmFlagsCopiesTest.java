package io.faultline.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.faultline.format.JvmFlags;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two copies of trace-format's jvm.flags that cannot read it: the manifest of faultline.jar
 * (tools/pom.xml: Add-Exports, Add-Opens, for java -jar) and RecorderBenchmark's @Fork (an
 * annotation takes constants). Either one differing from the list fails here.
 */
class JvmFlagsCopiesTest
{
    @Test
    void theJarsManifestExportsAndOpensWhatTheListDoes() throws IOException
    {
        try (JarFile jar = new JarFile(Path.of("..", "tools", "target", "faultline.jar").toFile()))
        {
            final Attributes manifest = jar.getManifest().getMainAttributes();
            assertEquals(packages("--add-exports="), manifest.getValue("Add-Exports"));
            assertEquals(packages("--add-opens="), manifest.getValue("Add-Opens"));
        }
    }

    @Test
    void recorderBenchmarksForkPassesTheList() throws IOException
    {
        final String source = Files.readString(Path.of("src/main/java/io/faultline/bench/RecorderBenchmark.java"));
        final int fork = source.indexOf("@Fork(");
        assertTrue(fork >= 0, "RecorderBenchmark has no @Fork");
        final String annotation = source.substring(fork, source.indexOf("})", fork));
        final List<String> args = new ArrayList<>();
        final Matcher literal = Pattern.compile("\"([^\"]*)\"").matcher(annotation);
        while (literal.find())
        {
            args.add(literal.group(1));
        }
        assertEquals(JvmFlags.list(), args);
    }

    /** The list's module/package pairs of one kind, as a manifest names them: space-separated. */
    private static String packages(final String prefix)
    {
        return JvmFlags.list().stream().filter(f -> f.startsWith(prefix))
            .map(f -> f.substring(prefix.length(), f.length() - "=ALL-UNNAMED".length()))
            .collect(Collectors.joining(" "));
    }
}
