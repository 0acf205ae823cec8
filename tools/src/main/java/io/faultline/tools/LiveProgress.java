package io.faultline.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.faultline.damon.live.LiveMonitor;
import io.faultline.sim.report.Progress;
import io.faultline.tracer.RecordingCounts;

/**
 * The progress lines of {@code record} and {@code monitor -- PROGRAM}, drawn by {@link Progress#beside}
 * on a terminal: what the program has given so far, the rate since the start, the time since the
 * start, and its processes and threads.
 */
final class LiveProgress
{
    private LiveProgress()
    {
    }

    /** {@code Recording: 1,234,567 references, 45.6 k/s, 27 s, 2 processes, 9 threads}. */
    static String recording(final RecordingCounts counts, final long elapsedNs)
    {
        final long references = counts.references();
        return String.format(Locale.ROOT, "Recording: %,d references, %s, %s, %s, %s", references,
            Progress.rate(perSecond(references, elapsedNs)), elapsed(elapsedNs), plural(counts.processes(), "process",
                "processes"), plural(counts.threads(), "thread", "threads"));
    }

    /**
     * {@code Monitoring pid 4242: 12 aggregations, 3,456 faults, 1.2 k/s, 5 s, 4 threads with the agent's},
     * or {@code Monitoring: starting, 1 s} before the program runs; threads are the target's now
     * ({@code /proc/PID/task}, where the agent's handler is one of them), none once it has exited.
     */
    static String monitoring(final LiveMonitor.Watch watch, final long elapsedNs)
    {
        if (watch == null)
        {
            return "Monitoring: starting, " + elapsed(elapsedNs);
        }
        final long faults = watch.faults().getAsLong();
        return String.format(Locale.ROOT, "Monitoring pid %d: %s, %,d faults, %s, %s, %s", watch.pid(),
            plural(watch.aggregations().getAsLong(), "aggregation", "aggregations"), faults,
            Progress.rate(perSecond(faults, elapsedNs)), elapsed(elapsedNs), plural(threads(watch.pid()), "thread",
                "threads") + " with the agent's");
    }

    private static double perSecond(final long count, final long elapsedNs)
    {
        return elapsedNs > 0 ? count * 1e9 / elapsedNs : 0;
    }

    private static String elapsed(final long elapsedNs)
    {
        return Progress.duration(TimeUnit.NANOSECONDS.toSeconds(elapsedNs));
    }

    private static String plural(final long n, final String one, final String many)
    {
        return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? one : many);
    }

    /** The threads a process has now: one entry each in /proc/PID/task; 0 once it is gone. */
    private static long threads(final int pid)
    {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Integer.toString(pid), "task")))
        {
            return tasks.count();
        }
        catch (final IOException | SecurityException ex)
        {
            return 0;
        }
    }
}
