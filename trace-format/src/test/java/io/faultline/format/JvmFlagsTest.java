package io.faultline.format;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JvmFlagsTest
{
    @Test
    void theListIsTheModuleFlagsChronicleNeedsAndItsProperty()
    {
        final List<String> flags = JvmFlags.list();
        assertEquals(12, flags.size(), flags.toString());
        assertEquals(6, flags.stream().filter(f -> f.startsWith("--add-exports=")).count(), flags.toString());
        assertEquals(5, flags.stream().filter(f -> f.startsWith("--add-opens=")).count(), flags.toString());
        for (final String flag : flags)
        {
            assertTrue(flag.matches("--add-(exports|opens)=[\\w.]+/[\\w.]+=ALL-UNNAMED")
                || flag.equals("-Dchronicle.analytics.disable=true"), flag);
        }
        assertTrue(flags.contains("--add-opens=java.base/java.lang=ALL-UNNAMED"), flags.toString());
    }

    /** The build passes the file to this very JVM (faultline.jvm.flags: @FILE), and java expands it in order. */
    @Test
    void theBuildsTestJvmGotTheListInItsOrder()
    {
        final List<String> arguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
        assertTrue(Collections.indexOfSubList(arguments, JvmFlags.list()) >= 0, arguments.toString());
    }

    /** The jar carries the file the launcher and the build read, byte for byte (no resource filtering). */
    @Test
    void theJarsResourceIsTheSourceFile() throws IOException
    {
        final Path source = Path.of("..").resolve(JvmFlags.SOURCE);
        try (InputStream in = JvmFlags.class.getResourceAsStream("jvm.flags"))
        {
            assertArrayEquals(Files.readAllBytes(source), in.readAllBytes());
        }
    }
}
