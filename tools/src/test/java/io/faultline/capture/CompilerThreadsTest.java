package io.faultline.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.faultline.tracer.CompilerThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The recorder's JIT compiler threads yield to the program: nice 19 each, read back from the
 * kernel ({@code /proc/self/task/TID/stat}, field 19, man 5 proc_pid_stat), the rest of the JVM
 * untouched.
 */
class CompilerThreadsTest
{
    @Test
    void compilerThreadsRunAtNice19AndTheCallerDoesNot() throws Exception
    {
        final List<Integer> compilers = CompilerThreads.compilerThreads();
        assertFalse(compilers.isEmpty(), "a HotSpot JVM has compiler threads");
        final int before = nice("/proc/thread-self/stat");
        final List<Integer> changed = CompilerThreads.yieldToProgram();
        assertEquals(compilers, changed);
        for (final int tid : changed)
        {
            assertEquals(CompilerThreads.NICE, nice("/proc/self/task/" + tid + "/stat"), "thread " + tid);
        }
        assertEquals(before, nice("/proc/thread-self/stat"), "the calling thread keeps its priority");
    }

    /** Field 19 of a stat line; the fields after the command's closing parenthesis start at 3. */
    private static int nice(final String stat) throws Exception
    {
        final String line = Files.readString(Path.of(stat));
        final String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(fields[19 - 3]);
    }
}
