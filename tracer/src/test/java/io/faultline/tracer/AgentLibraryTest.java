package io.faultline.tracer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's extracted copies: one per content hash, in use while a JVM holds it, and the
 * others deleted when no running faultline uses them (AgentLibrary's prune).
 */
class AgentLibraryTest
{
    @TempDir
    Path tmp;

    /** CRC32C then CRC32 of "123456789": the check values of both (RFC 3720, ISO 3309). */
    @Test
    void aCopysNameIsItsTwoChecksums()
    {
        assertEquals("e3069283cbf43926", AgentLibrary.nameOf("123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        assertEquals("0000000000000000", AgentLibrary.nameOf(new byte[0]));
        final byte[] one = new byte[1 << 20];
        final byte[] other = one.clone();
        other[12345] = 1;
        assertFalse(AgentLibrary.nameOf(one).equals(AgentLibrary.nameOf(other)));
    }

    @Test
    void copiesNoRunningFaultlineUsesAreDeletedAndOneInUseStays() throws Exception
    {
        final String before = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", tmp.toString());
        Process holder = null;
        try
        {
            final Path copies = tmp.resolve("faultline-" + Libc.INSTANCE.geteuid());
            final Path stale = Files.createDirectories(copies.resolve("0000000000000001"));
            Files.write(stale.resolve("libfaultline.so"), new byte[] {1});
            final Path inUse = Files.createDirectories(copies.resolve("0000000000000002"));
            Files.write(inUse.resolve("libfaultline.so"), new byte[] {2});
            // another process holds its copy as a recorder does: an fcntl read lock, here python's lockf
            holder = new ProcessBuilder("python3", "-c", "import fcntl, sys, time\n"
                + "f = open(sys.argv[1], 'rb'); fcntl.lockf(f, fcntl.LOCK_SH); print('locked', flush=True); "
                + "time.sleep(60)", inUse.resolve("libfaultline.so").toString()).redirectErrorStream(true).start();
            assertEquals("locked", new String(holder.getInputStream().readNBytes(6)));

            final Path ours = AgentLibrary.locate();
            assertEquals(copies, ours.getParent().getParent());
            assertTrue(Files.size(ours) > 10_000, "the agent itself: " + ours);
            assertFalse(Files.exists(stale), "a copy no one uses is deleted");
            assertTrue(Files.exists(inUse.resolve("libfaultline.so")), "a copy another process uses stays");
        }
        finally
        {
            System.setProperty("java.io.tmpdir", before);
            if (holder != null)
            {
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
