package io.faultline.sweep;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code faultline sweep} on local[2] against {@code faultline simulate} on the same grid: the
 * same rows; and a trace whose every task fails (a staged trace corrupted after its header)
 * fails its cells alone, each named, while the other trace's are reported. One Spark start.
 */
class SweepTest
{
    @TempDir
    Path dir;

    @Test
    void sameRowsAsSimulateAndFailedCellsNamed() throws IOException
    {
        final String cpp = Run.trace("lirs-cpp.trace.gz").toString();
        final String multi = Run.trace("lirs-multi1.trace.gz").toString();
        final List<String> grid = List.of("--format", "lirs", "--policies", "lru,arc,opt", "--sizes", "50,1000");

        // A staged trace whose frames are garbage: its header reads, its keys do not.
        final Path stage = dir.resolve("stage");
        final Run staged = Run.of(cat(List.of("sweep", "--master", "local[1]", "--stage", stage.toString(),
            "--stage-only"), grid, List.of(cpp)));
        assertEquals(0, staged.status(), staged::toString);
        final Path keys = Files.list(stage).filter(p -> p.toString().endsWith(".keys")).findFirst().orElseThrow();
        final byte[] bytes = Files.readAllBytes(keys);
        for (int i = bytes.length - 200; i < bytes.length - 40; i++)
        {
            bytes[i] ^= 0x5a;
        }
        final Path corrupt = dir.resolve("corrupt.keys");
        Files.write(corrupt, bytes);

        final Path sweepCsv = dir.resolve("sweep.csv");
        final Run sweep = Run.of(cat(List.of("sweep", "--master", "local[2]", "--csv", sweepCsv.toString()), grid,
            List.of(cpp, corrupt.toString(), multi)));
        final Path simulateCsv = dir.resolve("simulate.csv");
        final Run simulate = Run.of(cat(List.of("simulate", "--threads", "2", "--csv", simulateCsv.toString()), grid,
            List.of(cpp, multi)));
        assertEquals(0, simulate.status(), simulate::toString);

        System.err.print(sweep.err()); // the timings, in the test's output file
        assertEquals(1, sweep.status(), sweep::toString);
        assertEquals(Files.readAllLines(simulateCsv), Files.readAllLines(sweepCsv), sweep::toString);
        assertEquals(simulate.out(), sweep.out());
        // Every cell of the corrupt trace named, with its policy and size, in one line each.
        for (final String policy : List.of("lru", "arc", "opt"))
        {
            for (final String size : List.of("50", "1000"))
            {
                assertTrue(sweep.err().contains("sweep: cell failed: trace lirs-cpp.trace.gz, policy " + policy
                    + ", size " + size + ": "), sweep::toString);
            }
        }
        assertTrue(sweep.err().contains("sweep: 6 of 18 cells failed"), sweep::toString);
        assertFalse(sweep.err().contains("Exception"), sweep::toString);
        assertFalse(sweep.err().contains("\tat "), sweep::toString);
    }

    @Test
    void badInputIsOneLine()
    {
        final Run run = Run.of("sweep", "--policies", "lru", "--sizes", "10", "--minisim", "2",
            Run.trace("lirs-cpp.trace.gz").toString());
        assertEquals(2, run.status(), run::toString);
        assertEquals("faultline sweep: --minisim: 2.0 is not a sampling rate; give 0 < R <= 1, e.g. 0.1",
            run.err().strip());
    }

    @SafeVarargs
    private static String[] cat(final List<String>... parts)
    {
        return java.util.Arrays.stream(parts).flatMap(List::stream).toArray(String[]::new);
    }
}
