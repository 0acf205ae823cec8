package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.faultline.tracer.Recorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No shared memory outlives its recorder: a kill -9 at the worst moment, after the file is
 * created and before the program starts (no agent yet to remove it; tracer's ShmGuard does).
 * LifecycleTest covers a kill while the program runs, where the agent removes it.
 */
class SharedMemoryGuardTest
{
    @TempDir
    Path tmp;

    @Test
    void aRecorderKilledBeforeTheProgramStartsLeavesNoSharedMemory() throws Exception
    {
        final Path ran = tmp.resolve("ran");
        final ProcessBuilder builder = Faultline.builder(List.of("record", "-q", "-o", tmp.resolve("t").toString(), "--",
            "touch", ran.toString()))
            .redirectOutput(tmp.resolve("out.txt").toFile()).redirectError(tmp.resolve("err.txt").toFile());
        // The file appears a few milliseconds before the program starts: the recorder holds the
        // window open for 5 s here (a switch for tests), and the recorder is killed the moment the
        // file is there.
        builder.environment().put(Recorder.TEST_START_HOLD_ENV, "5000");
        final Process recorder = builder.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<Path> shm = List.of();
        while (shm.isEmpty() && recorder.isAlive() && System.nanoTime() < deadline)
        {
            shm = LifecycleTest.shmFilesOf(recorder.pid());
        }
        assertEquals(1, shm.size(), "the recorder made its shared memory: " + Files.readString(tmp.resolve("err.txt")));
        recorder.toHandle().destroyForcibly();
        assertTrue(recorder.waitFor(30, TimeUnit.SECONDS));
        assertFalse(Files.exists(ran), "killed before the program started (else this tests another window)");
        final long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Files.exists(shm.get(0)) && System.nanoTime() < gone)
        {
            Thread.sleep(10);
        }
        assertFalse(Files.exists(shm.get(0)), shm.get(0) + " outlived its recorder");
    }
}
