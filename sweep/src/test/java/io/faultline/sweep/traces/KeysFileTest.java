package io.faultline.sweep.traces;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keys files: every key back, in order, whole or from a frame on; truncation and corruption named. */
class KeysFileTest
{
    @TempDir
    Path dir;

    @Test
    void keysComeBackWholeAndByFrame() throws IOException
    {
        // Three frames: clustered pages, jumps both ways, the extremes of a long.
        final int frame = 1 << 12;
        final int n = 2 * frame + 1_234;
        final long[] keys = new long[n];
        final SplittableRandom random = new SplittableRandom(7);
        long page = 1L << 35;
        for (int i = 0; i < n; i++)
        {
            page += random.nextInt(100) < 90 ? random.nextInt(-3, 4) : random.nextLong();
            keys[i] = page;
        }
        keys[5] = Long.MIN_VALUE;
        keys[6] = Long.MAX_VALUE;
        final Path file = dir.resolve("t.keys");
        try (var out = Files.newOutputStream(file))
        {
            KeysFile.write(new KeysFile.Header("t", 4096, n, 0), keys, out, frame);
        }
        try (var in = Files.newInputStream(file))
        {
            assertArrayEquals(keys, KeysFile.readAll(in, "t"));
        }
        try (SeekableByteChannel channel = Files.newByteChannel(file))
        {
            assertArrayEquals(Arrays.copyOfRange(keys, frame, n),
                KeysFile.readFrames(channel, 1, 2, "t"));
        }
    }

    @Test
    void truncatedAndCorruptFilesAreNamed() throws IOException
    {
        final long[] keys = {1, 2, 3, 2, 1, 1000, 7};
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        KeysFile.write(new KeysFile.Header("t", 4096, keys.length, 0), keys, out);
        final byte[] whole = out.toByteArray();
        final IOException truncated = assertThrows(IOException.class,
            () -> KeysFile.readAll(new ByteArrayInputStream(Arrays.copyOf(whole, 50)), "x.keys"));
        assertTrue(truncated.getMessage().startsWith("x.keys: truncated after 0 of 7 references"),
            truncated.getMessage());
        final byte[] notKeys = "12\n13\n".getBytes();
        final IOException wrong = assertThrows(IOException.class,
            () -> KeysFile.readAll(new ByteArrayInputStream(notKeys), "y.txt"));
        assertEquals("y.txt is not a staged trace (no FLKEYS01 header); stage it with faultline sweep",
            wrong.getMessage());
    }
}
