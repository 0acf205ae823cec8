package io.faultline.sweep.grid;

import io.faultline.sim.PolicySpec;
import io.faultline.sim.Simulator;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceOptions;
import io.faultline.sweep.traces.KeysFile;
import io.faultline.sweep.traces.StagedTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MINISIM without Spark: at rate 1 it is the full replay; at rate 0.1 on libCacheSim's
 * cloudPhysicsIO its LRU and ARC miss ratios stay within 0.05 of the full replays' (0.027 to 0.035
 * measured; BENCHMARKS.md, "Sweeps on Apache Spark", has the errors over every policy and trace).
 */
class MiniSimTest
{
    @TempDir
    Path dir;

    @Test
    void rateOneIsTheFullReplayAndATenthIsClose() throws IOException, URISyntaxException
    {
        final Path classes = Path.of(MiniSimTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        final Path cloud = classes.getParent().getParent().getParent()
            .resolve("sim/src/test/resources/traces/cloudPhysicsIO.txt");
        final KeyTrace read = TraceFormats.read(TraceFormats.get("lcs-txt"), cloud, TraceOptions.defaults());
        final long[] keys = read.toArray();
        final Path file = dir.resolve("cloud.keys");
        try (OutputStream out = Files.newOutputStream(file))
        {
            KeysFile.write(new KeysFile.Header("cloud", 4096, keys.length, 0), keys, out);
        }
        final StagedTrace trace = new StagedTrace("cloud", file.toUri().toString(), false, keys.length, 4096);
        for (final String policy : new String[] {"lru", "arc"})
        {
            final PolicySpec spec = PolicySpec.parse(policy);
            for (final int size : new int[] {256, 1024, 4096})
            {
                final long full = Simulator.run(spec, size, keys).misses();
                assertEquals(full, MiniSim.run(spec, size, 1.0, trace, new long[1]).misses(), policy + " " + size);
                final double error = Math.abs(MiniSim.run(spec, size, 0.1, trace, new long[1]).misses() - full)
                    / (double)keys.length;
                assertTrue(error < 0.05, policy + " at " + size + ": miss ratio off by " + error);
            }
        }
    }
}
