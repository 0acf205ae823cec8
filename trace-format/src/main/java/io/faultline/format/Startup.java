package io.faultline.format;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Comparator;
import java.util.stream.Stream;

import net.openhft.posix.PosixAPI;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What a faultline process does first, to start fast (BENCHMARKS.md, "Start-up"): settings that
 * Chronicle Queue and JNA read as they initialise, and their initialisation started early, on a
 * thread of its own, while the command line is parsed.
 * <ul>
 * <li>Chronicle Core's {@code Jvm} class loads a POSIX binding as it initialises: jnr-ffi, which
 * generates and loads native call stubs with ASM, 0.1 s of every command that read or wrote a
 * trace. Chronicle calls it only for {@code msync}, of a queue with a sync mode other than NONE
 * (faultline sets none), and for a POSIX time provider faultline does not choose; the no-op
 * binding answers {@code msync} with success.</li>
 * <li>JNA's {@code NativeLibrary} runs {@code /sbin/ldconfig -p} as it initialises, to learn the
 * directories where a library named without a path may be, unless {@code
 * jna.platform.library.path} names them. The libraries faultline loads through JNA are libc (by
 * its soname, which the dynamic loader finds) and the agent (by its path).</li>
 * <li>zstd-jni copies its library out of the jar into a temporary file before loading it, unless
 * {@code ZstdNativePath} names one: the build puts it beside the jar ({@link #zstdBesideTheJar}).</li>
 * </ul>
 * Every main that touches a trace or JNA calls {@link #prepare} first.
 */
public final class Startup
{
    /** The classes whose initialisation {@link #warmInBackground} runs: JNA's first, as Chronicle's need it. */
    private static final String[] WARMED = {
        "com.sun.jna.Native",
        "com.sun.jna.NativeLibrary",
        "net.openhft.chronicle.core.Jvm",
        "net.openhft.chronicle.wire.Wires",
        "net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder",
        "net.openhft.chronicle.queue.impl.single.SingleChronicleQueue",
    };

    /** Where x86-64 distributions keep shared libraries (Debian's multiarch, then Fedora's, then the rest). */
    private static final String LIBRARY_DIRS = "/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu:/usr/lib64:/lib64:"
        + "/usr/local/lib:/usr/lib:/lib";

    /** Chronicle's usage reporting, which faultline turns off (docs/ARCHITECTURE.md, "Java 17 flags"). */
    private static final String ANALYTICS = "chronicle.analytics.disable";

    /** zstd-jni's property for a library file to load instead of its copy out of the jar. */
    private static final String ZSTD_PATH = "ZstdNativePath";

    private static boolean prepared;
    private static Thread warming;

    private Startup()
    {
    }

    public static synchronized void prepare()
    {
        if (!prepared)
        {
            PosixAPI.useNoOpPosixApi();
            if (System.getProperty(ANALYTICS) == null)
            {
                System.setProperty(ANALYTICS, "true"); // as the launcher's -D does, for java -jar faultline.jar
            }
            if (System.getProperty("jna.platform.library.path") == null)
            {
                System.setProperty("jna.platform.library.path", LIBRARY_DIRS);
            }
            final String zstd = zstdBesideTheJar();
            if (zstd != null && System.getProperty(ZSTD_PATH) == null)
            {
                System.setProperty(ZSTD_PATH, zstd);
            }
            prepared = true;
        }
    }

    /**
     * zstd-jni's library beside the jar that holds zstd-jni's classes, if the build put it there
     * (tools/pom.xml) and it is the one the jar carries (a file of the same name inside): loaded in
     * place, 2 to 10 ms, where zstd-jni's copy out of the jar into a temporary file took 29 to 63
     * (BENCHMARKS.md, "Start-up"). Null if there is none: zstd-jni then copies as before. Names
     * zstd-jni's classes without initialising them (Zstd's initialiser loads the library).
     */
    static String zstdBesideTheJar()
    {
        try
        {
            final Class<?> loader = com.github.luben.zstd.util.Native.class;
            final CodeSource source = loader.getProtectionDomain().getCodeSource();
            final Path jar = source == null ? null : Path.of(source.getLocation().toURI());
            if (jar == null || !Files.isRegularFile(jar))
            {
                return null; // classes from a directory, or no location
            }
            try (DirectoryStream<Path> libs = Files.newDirectoryStream(jar.getParent(), "libzstd-jni-*.so"))
            {
                for (final Path lib : libs)
                {
                    if (loader.getResource("/linux/amd64/" + lib.getFileName()) != null)
                    {
                        return lib.toString();
                    }
                }
            }
        }
        catch (final IOException | URISyntaxException | RuntimeException ex)
        {
            // no way to tell: zstd-jni's own copy
        }
        return null;
    }

    /**
     * Starts initialising JNA and Chronicle Queue on a daemon thread, then runs {@code more}
     * there (what else the command will need, such as the agent's copy); their failures are
     * left for the command to meet again and report. Until {@link #awaitWarm} returns, the
     * caller must use neither JNA nor Chronicle: two threads that initialise classes whose static
     * initialisers need each other deadlock, and Chronicle's do.
     */
    public static synchronized void warmInBackground(final Runnable... more)
    {
        prepare();
        if (warming == null)
        {
            warming = new Thread(() ->
            {
                warm();
                for (final Runnable task : more)
                {
                    try
                    {
                        task.run();
                    }
                    catch (final RuntimeException ignored)
                    {
                        // the command does it again and says what is wrong
                    }
                }
            }, "faultline-warm-up");
            warming.setDaemon(true);
            warming.start();
        }
    }

    /** Waits for {@link #warmInBackground}'s thread, if one was started. */
    public static void awaitWarm()
    {
        final Thread thread;
        synchronized (Startup.class)
        {
            thread = warming;
        }
        if (thread != null)
        {
            Tasks.join(thread);
        }
    }

    /**
     * Writes a trace of one record and one event into a temporary directory, and reads it back
     * if {@code read}, then removes it: what a command does first with its own trace, done once
     * beforehand, so that Chronicle's classes and first-use paths are ready when it comes to
     * that (the first queue a JVM created took 75 ms, the next ones 5). Under /dev/shm, in memory,
     * where there is one, in {@code faultline-warm-up-PID}; what a process killed meanwhile left
     * there, the next one removes.
     */
    public static void warmTraces(final boolean read)
    {
        final Path shm = Path.of("/dev/shm");
        final Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
        removeLeftOvers(base);
        Path dir = null;
        try
        {
            dir = Files.createDirectory(base.resolve(WARM_UP_DIR + ProcessHandle.current().pid()));
            final Path trace = dir.resolve("trace");
            final TraceHeader header = TraceHeader.create().put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
                .put(TraceHeader.PAGE_SIZE, 4096);
            try (TraceWriter writer = TraceWriter.create(trace, header))
            {
                final UnsafeBuffer chunk = new UnsafeBuffer(new byte[ChunkDescriptor.length(1)]);
                chunk.putInt(ChunkDescriptor.PID, 1, ByteOrder.LITTLE_ENDIAN);
                chunk.putInt(ChunkDescriptor.TID, 1, ByteOrder.LITTLE_ENDIAN);
                chunk.putInt(ChunkDescriptor.COUNT, 1, ByteOrder.LITTLE_ENDIAN);
                chunk.putLong(ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_ADDRESS, 0x1000,
                    ByteOrder.LITTLE_ENDIAN);
                writer.write(TraceLayout.EXCERPT_CHUNK, chunk, 0, chunk.capacity());
                final UnsafeBuffer event = new UnsafeBuffer(new byte[EventDescriptor.HEADER_SIZE]);
                event.putInt(EventDescriptor.TYPE, EventType.PROCESS_EXIT.code(), ByteOrder.LITTLE_ENDIAN);
                event.putInt(EventDescriptor.PID, 1, ByteOrder.LITTLE_ENDIAN);
                event.putInt(EventDescriptor.TID, 1, ByteOrder.LITTLE_ENDIAN);
                event.putLong(EventDescriptor.SEQ, 1, ByteOrder.LITTLE_ENDIAN);
                writer.write(TraceLayout.EXCERPT_EVENT, event, 0, event.capacity());
                writer.finish(header.put(TraceHeader.REFERENCES, 1).put(TraceHeader.EVENTS, 1));
            }
            if (read)
            {
                try (TraceReader reader = TraceReader.open(trace))
                {
                    reader.forEach(new TraceVisitor()
                    {
                        @Override
                        public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                            final long address, final boolean write)
                        {
                        }
                    });
                }
            }
        }
        catch (final IOException | RuntimeException ignored)
        {
            // a warm-up only: the command meets whatever this met, and says it
        }
        finally
        {
            if (dir != null)
            {
                removeTree(dir);
            }
        }
    }

    private static final String WARM_UP_DIR = "faultline-warm-up-";

    /** The warm-up directories of processes that are gone (killed during their first moments). */
    private static void removeLeftOvers(final Path base)
    {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(base, WARM_UP_DIR + "*"))
        {
            for (final Path dir : dirs)
            {
                final String pid = dir.getFileName().toString().substring(WARM_UP_DIR.length());
                if (pid.matches("\\d{1,10}") && ProcessHandle.of(Long.parseLong(pid)).isEmpty())
                {
                    removeTree(dir);
                }
            }
        }
        catch (final IOException | RuntimeException ignored)
        {
            // nothing to list, or not ours: it stays
        }
    }

    private static void removeTree(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(file);
            }
        }
        catch (final IOException | RuntimeException ignored)
        {
            // another process's, or gone already
        }
    }

    private static void warm()
    {
        final ClassLoader loader = Startup.class.getClassLoader();
        for (final String name : WARMED)
        {
            try
            {
                Class.forName(name, true, loader);
            }
            catch (final Throwable ignored)
            {
                // whatever fails here fails again where it is used, and is reported there
            }
        }
    }
}
