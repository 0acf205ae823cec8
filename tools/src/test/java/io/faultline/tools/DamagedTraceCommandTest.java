package io.faultline.tools;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.faultline.format.BlockDescriptor;
import io.faultline.format.TraceLayout;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A format-4 trace with one byte of one block damaged, as the commands meet it: each read
 * refuses it in one line that names the file, the offset and what the block held, and exits 4;
 * with --skip-corrupt, dump delivers everything but that block's references and says what it
 * skipped (issue 39: "dump prints a garbage eviction and exits 0" no more).
 */
class DamagedTraceCommandTest
{
    @TempDir
    Path tmp;

    /** Three processes, a block each: 100's references are seq 0 and 1, 200's 2 and 3, 300's 4 and 5. */
    private Path trace() throws Exception
    {
        return FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {100, 101, 0x1000, 0x2000},
            new long[] {200, 201, 0x5000, 0x6000}, new long[] {300, 301, 0x9000, 0xa000});
    }

    private static Path queueFile(final Path dir) throws Exception
    {
        try (Stream<Path> files = Files.list(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            return files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    /** Flips the last byte of process {@code pid}'s block, found by its magic; returns where the block starts. */
    private static long damageBlockOf(final Path file, final int pid) throws Exception
    {
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        for (int at = 0; at + BlockDescriptor.HEADER_SIZE <= bytes.limit(); at += 4)
        {
            if (bytes.getInt(at) == BlockDescriptor.MAGIC && bytes.getInt(at + BlockDescriptor.PID) == pid)
            {
                final long last = at + BlockDescriptor.HEADER_SIZE + bytes.getInt(at + BlockDescriptor.BODY_LENGTH) - 1;
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
                {
                    f.seek(last);
                    f.write(bytes.get((int)last) ^ 0x20);
                }
                return at;
            }
        }
        throw new AssertionError("no block of process " + pid + " in " + file);
    }

    @Test
    void aDamagedBlockIsNamedAndTheReadFailsAndSkipCorruptReadsTheRest() throws Exception
    {
        final Path dir = trace();
        final CommandRun sound = CommandRun.of("dump", dir.toString());
        assertEquals(0, sound.status(), sound.toString());
        final Path file = queueFile(dir);
        final long at = damageBlockOf(file, 200);
        final String place = file + " at byte " + at + ": a damaged block (its checksum does not match its contents); "
            + "lost 2 references and 0 events of process 200 (thread 201), seq 2 to 3, ";

        for (final String[] command : new String[][] {{"dump"}, {"simulate", "--policies", "lru", "--sizes", "1"},
            {"mrc"}, {"info"}})
        {
            final String[] args = Arrays.copyOf(command, command.length + 1);
            args[command.length] = dir.toString();
            final CommandRun run = CommandRun.of(args);
            assertEquals(4, run.status(), run.toString());
            final String last = run.lastErrLine();
            assertTrue(last.startsWith("faultline " + command[0] + ": corrupt trace " + dir + ": " + place), run.toString());
            assertTrue(last.endsWith("; faultline reads past it with --skip-corrupt"), run.toString());
            assertTrue(!run.err().contains("Exception") && !run.err().contains("\tat "), run.toString());
        }

        final CommandRun skipped = CommandRun.of("dump", "--skip-corrupt", dir.toString());
        assertEquals(0, skipped.status(), skipped.toString());
        final String expected = sound.out().lines().filter(l -> !l.contains(" 200 201 "))
            .collect(Collectors.joining("\n", "", "\n"));
        assertEquals(expected, skipped.out(), "everything but process 200's block");
        assertEquals(2, sound.out().lines().filter(l -> l.contains(" 200 201 ")).count(), "its two references");
        final String[] notes = skipped.errLines();
        assertEquals(2, notes.length, skipped.toString());
        assertTrue(notes[0].startsWith("damaged: " + place), skipped.toString());
        assertEquals("skipped 1 corrupt excerpt of " + dir + " (--skip-corrupt): 2 references lost", notes[1]);
    }
}
