package io.faultline.sweep;

import io.faultline.sweep.cluster.StandaloneCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep submitted to a Spark standalone master with one worker, both started here with
 * Spark's own classes; its executor is a JVM of its own, which gets the trace shipped with the
 * job. Same rows as {@code simulate}. SPARK_HOME and SPARK_SCALA_VERSION come from the pom.
 */
class StandaloneSweepTest
{
    @TempDir
    Path dir;

    @Test
    void sameRowsAsSimulateOnAStandaloneCluster() throws IOException
    {
        // The worker's Spark home: its jars/ may be empty, since executors get this JVM's class path.
        final Path sparkHome = Path.of(System.getenv("SPARK_HOME"));
        Files.createDirectories(sparkHome.resolve("jars"));
        final String trace = Run.trace("lirs-2_pools.trace.gz").toString();
        final String[] grid = {"--format", "lirs", "--policies", "lru,lirs", "--sizes", "100,1000", trace};
        final Path sweepCsv = dir.resolve("sweep.csv");
        final Path simulateCsv = dir.resolve("simulate.csv");
        try (StandaloneCluster cluster = new StandaloneCluster(1, 2, 1024, new File(dir.toFile(), "work")))
        {
            // The executor's JVM: C1 only and the serial collector, for a quick start (4 short replays).
            final Run sweep = Run.of(concat(new String[] {"sweep", "--master", cluster.url(), "--conf",
                "spark.executor.memory=512m", "--conf", "spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1 "
                + "-XX:+UseSerialGC", "--csv", sweepCsv.toString()}, grid));
            System.err.print(sweep.err()); // the timings, in the test's output file
            assertEquals(0, sweep.status(), sweep::toString);
            assertTrue(sweep.err().contains("Started Spark (" + cluster.url()), sweep::toString);
        }
        final Run simulate = Run.of(concat(new String[] {"simulate", "--csv", simulateCsv.toString()}, grid));
        assertEquals(0, simulate.status(), simulate::toString);
        assertEquals(Files.readAllLines(simulateCsv), Files.readAllLines(sweepCsv));
    }

    private static String[] concat(final String[] a, final String[] b)
    {
        final String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
