package io.faultline.sweep.cluster;

import org.apache.spark.SparkConf;
import org.apache.spark.deploy.master.Master;
import org.apache.spark.deploy.worker.Worker;
import org.apache.spark.rpc.RpcEnv;
import scala.Option;
import scala.Tuple3;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Spark standalone cluster in one JVM on this machine: Spark's own master and workers
 * ({@link Master}, {@link Worker}, as {@code sbin/start-master.sh} and {@code start-worker.sh}
 * start them), for the test that submits a sweep to a real master and for the benchmark of
 * bench/sweep-bench.sh. Workers start executors as JVMs of their own, with Spark's jars from
 * {@code SPARK_HOME/jars} (the sweep module's target/spark) and the Scala version from
 * {@code SPARK_SCALA_VERSION}; both must be in this JVM's environment.
 */
public final class StandaloneCluster implements AutoCloseable
{
    private static final String HOST = "127.0.0.1";

    private final RpcEnv master;
    private final List<RpcEnv> workers = new ArrayList<>();
    private final String url;

    /**
     * Starts a master and {@code workers} workers of {@code cores} cores and {@code memoryMb}
     * MiB each, on the loopback address and free ports.
     *
     * @param workDir where workers keep their executors' directories and logs
     */
    public StandaloneCluster(final int workers, final int cores, final int memoryMb, final File workDir)
    {
        final SparkConf conf = new SparkConf(false)
            // Nothing here for a REST submission server to do; it would take a port.
            .set("spark.master.rest.enabled", "false")
            .set("spark.master.ui.port", "0")
            .set("spark.worker.ui.port", "0");
        final Tuple3<RpcEnv, Object, Option<Object>> started = Master.startRpcEnvAndEndpoint(HOST, 0, 0, conf);
        master = started._1();
        url = "spark://" + HOST + ":" + master.address().port();
        try
        {
            for (int i = 1; i <= workers; i++)
            {
                final File dir = new File(workDir, "worker-" + i);
                if (!dir.isDirectory() && !dir.mkdirs())
                {
                    throw new IllegalStateException("cannot create " + dir);
                }
                this.workers.add(Worker.startRpcEnvAndEndpoint(HOST, 0, 0, cores, memoryMb, new String[] {url},
                    dir.getAbsolutePath(), Option.apply(i), conf, Option.empty()));
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /** The master's URL, spark://127.0.0.1:PORT, for {@code faultline sweep --master}. */
    public String url()
    {
        return url;
    }

    /** Stops the workers (and with them their executors), then the master. */
    @Override
    public void close()
    {
        for (final RpcEnv worker : workers)
        {
            worker.shutdown();
        }
        for (final RpcEnv worker : workers)
        {
            worker.awaitTermination();
        }
        master.shutdown();
        master.awaitTermination();
    }

    /**
     * {@code StandaloneCluster WORKERS CORES MEMORY_MB WORK_DIR}: starts a cluster, prints its
     * master URL on a line of its own, and runs until its standard input ends.
     */
    public static void main(final String[] args) throws IOException
    {
        if (args.length != 4)
        {
            System.err.println("usage: StandaloneCluster WORKERS CORES MEMORY_MB WORK_DIR");
            System.exit(2);
        }
        try (StandaloneCluster cluster = new StandaloneCluster(Integer.parseInt(args[0]), Integer.parseInt(args[1]),
            Integer.parseInt(args[2]), new File(args[3])))
        {
            System.out.println(cluster.url());
            System.out.flush();
            System.err.printf(Locale.ROOT, "standalone cluster: %s workers of %s cores at %s; close stdin to stop%n",
                args[0], args[1], cluster.url());
            while (System.in.read() >= 0)
            {
                // Runs until stdin ends.
            }
        }
    }
}
