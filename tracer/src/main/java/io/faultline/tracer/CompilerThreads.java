package io.faultline.tracer;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The recorder's JIT compiler threads, made to yield to the program it runs. {@code record} and a
 * live {@code monitor} share this machine's two CPUs with the program, and the JIT compiles the
 * code that grew hot while the recorder started (picocli, the queue, the shared memory) just as
 * the program starts: under {@code monitor}, a 35 ms {@code sort} spent 2.0 of its 4.1 ms off-CPU
 * preempted by the monitor's C1 threads (perf's sched_switch events, BENCHMARKS.md "A 100 ms
 * stall in munmap, and the monitor's JIT"; in medians the change is within that machine's
 * noise). A compilation is never urgent for the recorder, so its compiler threads run at nice
 * 19: the scheduler gives them what the program leaves over.
 *
 * <p>Linux's setpriority(2) with {@code PRIO_PROCESS} and a thread id sets that thread's nice
 * value alone (man 2 setpriority, "BUGS": the POSIX per-process meaning is not Linux's). HotSpot
 * names its compiler threads "C1 CompilerThreadN" and "C2 CompilerThreadN", cut to 15 characters
 * in {@code /proc/self/task/TID/comm}. Threads that HotSpot starts later inherit the nice value
 * of the thread that creates them; the launcher turns off {@code UseDynamicNumberOfCompilerThreads}
 * so that all exist when this runs.
 */
public final class CompilerThreads
{
    /** The lowest priority a thread can have: nice 19. */
    public static final int NICE = 19;

    private static final int PRIO_PROCESS = 0;

    private CompilerThreads()
    {
    }

    /**
     * Gives this JVM's compiler threads nice {@link #NICE}; returns the thread ids it changed.
     * Best effort: a thread that ended meanwhile, or a platform without {@code /proc}, is skipped.
     */
    public static List<Integer> yieldToProgram()
    {
        final List<Integer> changed = new ArrayList<>();
        for (final int tid : compilerThreads())
        {
            if (Libc.INSTANCE.setpriority(PRIO_PROCESS, tid, NICE) == 0)
            {
                changed.add(tid);
            }
        }
        return changed;
    }

    /** The thread ids of this JVM's JIT compiler threads, from {@code /proc/self/task}. */
    public static List<Integer> compilerThreads()
    {
        final List<Integer> tids = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task")))
        {
            for (final Path task : tasks)
            {
                final String comm;
                try
                {
                    comm = Files.readString(task.resolve("comm")).strip();
                }
                catch (final IOException gone)
                {
                    continue; // the thread ended while we looked
                }
                if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre"))
                {
                    tids.add(Integer.parseInt(task.getFileName().toString()));
                }
            }
        }
        catch (final IOException noProc)
        {
            return List.of();
        }
        return tids;
    }
}
