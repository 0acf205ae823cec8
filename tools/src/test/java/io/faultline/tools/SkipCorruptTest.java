package io.faultline.tools;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.faultline.format.TraceLayout;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trace cut short in the middle of an excerpt: every command that reads a trace says so in one
 * line that names --skip-corrupt, and takes it, reading what comes before the cut and saying
 * where it stopped.
 */
class SkipCorruptTest
{
    @TempDir
    Path tmp;

    /** 20 excerpts of 100 references each, the queue file cut 100 bytes before the end of the last. */
    private Path cutTrace() throws IOException
    {
        final long[][] chunks = new long[20][];
        for (int c = 0; c < chunks.length; c++)
        {
            chunks[c] = new long[102];
            chunks[c][0] = 1;
            chunks[c][1] = 1;
            for (int i = 0; i < 100; i++)
            {
                chunks[c][i + 2] = 0x1000L * (1 + (c * 100 + i) % 300);
            }
        }
        // format 3, an excerpt a chunk (a format-4 trace's damage: DamagedTraceCommandTest, BlockDamageTest)
        final Path trace = FaultlineTraces.write(tmp.resolve("cut"), 3, 4096, chunks);
        try (Stream<Path> files = Files.list(trace.resolve(TraceLayout.QUEUE_DIR)))
        {
            for (final Path cq4 : files.filter(p -> p.toString().endsWith(".cq4")).toList())
            {
                final byte[] bytes = Files.readAllBytes(cq4);
                int end = bytes.length;
                while (end > 0 && bytes[end - 1] == 0)
                {
                    end--;
                }
                try (RandomAccessFile file = new RandomAccessFile(cq4.toFile(), "rw"))
                {
                    file.setLength(end - 100);
                }
            }
        }
        return trace;
    }

    @Test
    void everyCommandThatReadsATraceNamesSkipCorruptAndTakesIt() throws IOException
    {
        final String trace = cutTrace().toString();
        final List<List<String>> commands = List.of(List.of("dump"), List.of("simulate", "--policies", "lru", "--sizes",
            "16"), List.of("mrc"), List.of("export", "--to", "lirs"), List.of("report", "wss"), List.of("report", "reuse"),
            List.of("monitor", "-o", tmp.resolve("m").toString(), "--from-trace"));
        for (final List<String> command : commands)
        {
            final List<String> args = new ArrayList<>(command);
            args.add(trace);
            final CommandRun refused = CommandRun.of(args.toArray(new String[0]));
            assertEquals(4, refused.status(), refused.toString());
            assertTrue(refused.lastErrLine().matches("faultline " + String.join(" ", command.subList(0,
                command.get(0).equals("report") ? 2 : 1)) + ": truncated trace .*: excerpt \\d+: .*; faultline reads the "
                + "excerpts before it with --skip-corrupt"), refused.toString());

            args.add(command.get(0).equals("report") ? 2 : 1, "--skip-corrupt");
            if (command.get(0).equals("monitor"))
            {
                args.set(args.indexOf(tmp.resolve("m").toString()), tmp.resolve("m2").toString());
            }
            final CommandRun read = CommandRun.of(args.toArray(new String[0]));
            assertEquals(0, read.status(), read.toString());
            assertTrue(read.err().contains("only up to a break in its queue"), read.toString());
            if (command.get(0).equals("dump"))
            {
                // the 19 whole excerpts: every reference but the last excerpt's 100
                assertEquals(1 + 1900, read.out().lines().count(), read.out().lines().limit(3).toList().toString());
            }
        }
    }
}
