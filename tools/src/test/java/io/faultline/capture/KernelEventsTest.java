package io.faultline.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.io.TempDir;

import io.faultline.format.EventType;
import io.faultline.format.KernelEvents;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;

/**
 * Kernel events (issue 27, item 3; trace-format/FORMAT.md, "Kernel events"): the system-call
 * gate records the program's open, close, dup, read, write, truncate, unlink, rename, shmat and
 * shmdt under every engine. workloads/kernel_events.c writes, truncates and reads back a regular
 * file, writes and reads a pipe, dups, closes, renames, unlinks, attaches and detaches a segment,
 * and makes calls that fail; it prints (stderr) the events the trace must hold, with the inodes,
 * devices and lengths fstat gave it, in the words of {@code faultline dump}. Each engine's trace
 * must hold exactly those for the program's own files (its writes to stdout and stderr come too,
 * and are left out by descriptor), the program's
 * output must be its native output, and with --no-kernel-events there must be none. A small EVMS
 * keeps the buffers and paths going in and out of it, so that under sigbus and mprotect the gate
 * hands the kernel pages it just brought in.
 */
class KernelEventsTest
{
    private static final List<String> LABELS = List.of("open", "close", "dup", "read", "write", "truncate", "unlink",
        "rename", "shmat", "shmdt");

    @TempDir
    Path tmp;

    @BothEngines
    void theTraceHoldsWhatTheProgramDidToItsFiles(final String engine) throws Exception
    {
        final Path dir = Files.createDirectories(tmp.resolve("files"));
        final String program = Workloads.build("kernel_events").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(program, dir.toString()), 30);
        assertEquals(0, nativeRun.status(), nativeRun.describe());

        final Path trace = tmp.resolve("trace-" + engine);
        final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--engine", engine, "--evms", "16", "-o",
            trace.toString(), "--", program, dir.toString()), 60);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(nativeRun.out(), traced.out(), traced.describe());
        final List<String> truth = truth(traced.err());
        assertEquals(27, truth.size(), traced.describe());
        assertEquals(truth, ours(Traces.read(trace).events, dir.toRealPath().toString()), "engine " + engine);
        try (TraceReader reader = TraceReader.open(trace))
        {
            assertEquals("true", reader.header().get(TraceHeader.KERNEL_EVENTS));
        }

        final Path quiet = tmp.resolve("quiet-" + engine);
        final Faultline.Result without = Faultline.run(List.of("record", "-q", "--engine", engine, "--evms", "16",
            "--no-kernel-events", "-o", quiet.toString(), "--", program, dir.toString()), 60);
        assertEquals(0, without.status(), without.describe());
        assertEquals(nativeRun.out(), without.out(), without.describe());
        assertEquals(List.of(), Traces.read(quiet).events.stream().filter(KernelEvents::is).map(KernelEventsTest::line)
            .collect(Collectors.toList()));
        try (TraceReader reader = TraceReader.open(quiet))
        {
            assertEquals("false", reader.header().get(TraceHeader.KERNEL_EVENTS));
        }
    }

    /**
     * {@code dump} prints each kernel event legibly, as the program printed it; {@code export --to
     * kvmtrace} writes kVMTrace's kernel records (a file's open with its length and type, its reads
     * and writes with offset and bytes, the pipe's with no offset, truncations, the delete, the
     * segment's attach and detach), which read back as a kvmtrace trace.
     */
    @org.junit.jupiter.api.Test
    void dumpShowsThemAndExportWritesKvmTracesKernelRecords() throws Exception
    {
        final Path dir = Files.createDirectories(tmp.resolve("files"));
        final Path trace = tmp.resolve("trace");
        final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--evms", "16", "-o", trace.toString(), "--",
            Workloads.build("kernel_events").toString(), dir.toString()), 60);
        assertEquals(0, traced.status(), traced.describe());
        final List<String> truth = truth(traced.err());

        final Faultline.Result dump = Faultline.run("dump", trace.toString());
        assertEquals(0, dump.status(), dump.describe());
        final List<String> dumped = new ArrayList<>();
        for (final String l : dump.out().split("\n"))
        {
            final String[] f = l.split(" ", 7); /* -- seq time pid tid label rest */
            if (f.length == 7 && f[0].equals("--") && LABELS.contains(f[5]))
            {
                dumped.add(f[5] + " " + f[6]);
            }
        }
        assertTrue(dumped.containsAll(truth), "dump shows the program's kernel events:\n" + dump.out());

        final Path exported = tmp.resolve("kvm.txt");
        final Faultline.Result export = Faultline.run("export", "--to", "kvmtrace", "-o", exported.toString(), trace.toString());
        assertEquals(0, export.status(), export.describe());
        final String path = dir.toRealPath().resolve("data").toString();
        final String open = truth.get(0); /* open fd=N regular dev=D inode=I length=0 PATH */
        final String inode = open.replaceAll(".* inode=(\\d+) .*", "$1");
        final String device = open.replaceAll(".* dev=(\\S+) .*", "$1");
        final String file = " " + inode + " " + device;
        final List<String> kernel = Files.readAllLines(exported).stream().filter(l -> !l.matches("[rwRW] .*"))
            .map(l -> l.replaceFirst("^(\\S) \\d+ \\d+", "$1")).collect(Collectors.toList());
        for (final String expected : List.of("(" + file + " 0 f " + path, ">" + file + " 0 10000", ">" + file + " 20000 100",
            "t" + file + " 5000", "t" + file + " 3000", "<" + file + " 0 3000", "<" + file + " 1000 1000", "<" + file
                + " 500 300", ">" + file + " 800 100", "<" + file + " 2000 50", ")" + file, "-" + file))
        {
            assertTrue(kernel.contains(expected), "kvmtrace export has '" + expected + "':\n" + String.join("\n", kernel));
        }
        assertTrue(kernel.stream().anyMatch(l -> l.matches("> \\d+ 0:\\d+ - 14")), "the pipe's write, no offset: " + kernel);
        assertTrue(kernel.stream().anyMatch(l -> l.matches("s 0x[0-9a-f]+ 12288 \\d+")), "shmat: " + kernel);
        assertTrue(kernel.stream().anyMatch(l -> l.matches("U 0x[0-9a-f]+ 12288")), "shmdt as an unmap: " + kernel);
        final Faultline.Result back = Faultline.run("simulate", "--format", "kvmtrace", "--policies", "lru", "--sizes", "4",
            exported.toString());
        assertEquals(0, back.status(), "the export reads back with its kernel records skipped: " + back.describe());
    }

    /** The events the program printed (stderr), one per line. */
    private static List<String> truth(final String err)
    {
        return err.lines().filter(l -> LABELS.contains(l.split(" ", 2)[0])).collect(Collectors.toList());
    }

    private static String line(final TraceEvent e)
    {
        final StringBuilder b = new StringBuilder(e.type().label());
        KernelEvents.describe(b, e);
        return b.toString();
    }

    /**
     * The kernel events of the program's own files, pipe and segment: opens of paths in dir and of
     * pipes, what is done with those descriptors and their dups, renames and unlinks in dir, and
     * shmat/shmdt; not the loader's libraries, nor stdout and stderr.
     */
    private static List<String> ours(final List<TraceEvent> events, final String dir)
    {
        final Set<Integer> fds = new HashSet<>();
        final List<String> lines = new ArrayList<>();
        for (final TraceEvent e : events)
        {
            if (!KernelEvents.is(e))
            {
                continue;
            }
            final boolean mine = switch (e.type())
            {
                case FILE_OPEN ->
                {
                    /* its own pipe; not stdin's, whose open event the image's start writes */
                    final boolean m = e.text().startsWith(dir + "/") || e.text().startsWith("pipe:") && KernelEvents.fd(e) > 2;
                    if (m)
                    {
                        fds.add(KernelEvents.fd(e));
                    }
                    yield m;
                }
                case FILE_DUP ->
                {
                    final boolean m = fds.contains(KernelEvents.fd(e));
                    if (m)
                    {
                        fds.add((int)e.b());
                    }
                    yield m;
                }
                case FILE_CLOSE -> fds.remove(KernelEvents.fd(e));
                case FILE_READ, FILE_WRITE -> fds.contains(KernelEvents.fd(e));
                case FILE_TRUNCATE -> fds.contains(KernelEvents.fd(e)) || e.text().startsWith(dir + "/");
                case FILE_UNLINK, FILE_RENAME -> e.text().startsWith(dir + "/");
                case SHMAT, SHMDT -> true;
                default -> false;
            };
            if (mine)
            {
                lines.add(line(e));
            }
        }
        assertTrue(events.stream().anyMatch(e -> e.type() == EventType.FILE_WRITE && KernelEvents.fd(e) == 2),
            "the program's write of its stderr is a kernel event too, left out here");
        assertTrue(events.stream().anyMatch(e -> e.type() == EventType.FILE_OPEN && KernelEvents.fd(e) == 2),
            "stderr, as the image started with it, has its open event");
        return lines;
    }
}
