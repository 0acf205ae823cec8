package io.faultline.sim.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import io.faultline.format.EventType;
import io.faultline.format.KernelEvents;
import io.faultline.format.ShmLayout;
import io.faultline.format.TraceEvent;

/**
 * kVMTrace's reduced trace as text (Kaplan, Smaragdakis and Wilson, ACM TOMACS 13(1), 2003;
 * kVMTrace's tag, time, context, virtual page): one eviction record per line, in the order the
 * agent emitted them, {@code TAG TIME_NS PID VPAGE} with the tag r, w, R or W (trace-format/
 * FORMAT.md, "EVMS"), the recording's time in nanoseconds, the process as the context, and the
 * virtual page number in hexadecimal. Reference records are left out. Read back by
 * {@link KvmTraceFormat}.
 *
 * <p>Between them, in trace order, kVMTrace's kernel records of the trace's kernel events
 * (FORMAT.md, "Kernel events"), with kVMTrace's tags and fields (its kernel patch's
 * include/linux/kvmtrace.h, TAG_FILE_* and FILE_TYPE_*, and kernel/kvmtrace.c,
 * emit_kernel_record, as in github.com/apasricha/KVMTrace-kernel-mod), after the same
 * {@code TIME_NS PID} as an eviction line; kVMTrace's own records began with a cycle count and
 * a reference count instead, and wrote every number in hexadecimal:
 * <pre>
 *   ( TIME_NS PID INODE DEVICE LENGTH TYPE PATH   open (TAG_FILE_OPEN): length at open, PATH to the line's end
 *   ) TIME_NS PID INODE DEVICE                    close (TAG_FILE_CLOSE)
 *   &lt; TIME_NS PID INODE DEVICE OFFSET BYTES       read (TAG_FILE_READ): OFFSET '-' when the call had none
 *   &gt; TIME_NS PID INODE DEVICE OFFSET BYTES       write (TAG_FILE_WRITE)
 *   t TIME_NS PID INODE DEVICE LENGTH             truncate, ftruncate (TAG_FILE_TRUNCATE): the new length
 *   - TIME_NS PID INODE DEVICE                    unlink, unlinkat, rmdir (TAG_FILE_DELETE)
 *   s TIME_NS PID 0xADDRESS LENGTH SHMID          shmat (TAG_SHMAT)
 *   U TIME_NS PID 0xADDRESS LENGTH                shmdt, as kVMTrace's unmap (TAG_MUNMAP): a detach unmaps the segment
 * </pre>
 * INODE is decimal, DEVICE is MAJOR:MINOR, TYPE is kVMTrace's file type: {@code f} regular (a
 * directory and a symbolic link too, as its determine_file_type said), {@code p} pipe,
 * {@code d} device (character or block), {@code s} socket, and {@code o} for anything else (an
 * eventfd: our letter, kVMTrace had none). kVMTrace named a file by inode and device where the
 * trace names a descriptor: this writer follows each process's descriptors from open events
 * through dups (which, like renames, write no line: the file and its inode stay the same) to
 * closes, and copies them to a child at a fork; a descriptor no open event named (one inherited
 * beyond stdin, stdout and stderr, which have theirs) has inode 0 and device 0:0.
 */
final class KvmTraceWriter implements ExportFormat
{
    /** The kVMTrace tags of the kernel records this writer writes, for {@link KvmTraceFormat} to tell them apart. */
    static final String KERNEL_TAGS = "()<>t-sU";

    /** A file as kVMTrace named it. */
    private record File(long inode, long device)
    {
    }

    private static final File UNKNOWN = new File(0, 0);

    @Override
    public String name()
    {
        return KvmTraceFormat.NAME;
    }

    @Override
    public String summary()
    {
        return "kVMTrace reduced trace: TAG TIME_NS PID VPAGE per eviction record, in eviction order, and kVMTrace's "
            + "kernel records of the kernel events";
    }

    static char fileType(final int kind)
    {
        return switch (kind)
        {
            case ShmLayout.FILE_REGULAR, ShmLayout.FILE_DIRECTORY, ShmLayout.FILE_SYMLINK -> 'f';
            case ShmLayout.FILE_PIPE -> 'p';
            case ShmLayout.FILE_CHAR, ShmLayout.FILE_BLOCK -> 'd';
            case ShmLayout.FILE_SOCKET -> 's';
            default -> 'o';
        };
    }

    @Override
    public ExportFormat.Writer open(final OutputStream out, final int pageSize)
    {
        final java.io.Writer text = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        final StringBuilder line = new StringBuilder(80);
        /* pid -> fd -> file */
        final Map<Integer, Map<Integer, File>> descriptors = new HashMap<>();
        return new ExportFormat.Writer()
        {
            @Override
            public void reference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write)
            {
            }

            @Override
            public void eviction(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final char tag) throws IOException
            {
                line.setLength(0);
                line.append(tag).append(' ').append(timeNs).append(' ').append(pid).append(" 0x")
                    .append(Long.toHexString(Long.divideUnsigned(address, pageSize))).append('\n');
                text.append(line);
            }

            private Map<Integer, File> table(final int pid)
            {
                return descriptors.computeIfAbsent(pid, p -> new HashMap<>());
            }

            private StringBuilder start(final char tag, final TraceEvent e)
            {
                line.setLength(0);
                return line.append(tag).append(' ').append(e.timeNs()).append(' ').append(e.pid());
            }

            private void file(final File f)
            {
                line.append(' ').append(f.inode()).append(' ').append(KernelEvents.device(f.device()));
            }

            @Override
            public void event(final TraceEvent e) throws IOException
            {
                if (e.type() == EventType.FORK)
                {
                    descriptors.put((int)e.a(), new HashMap<>(table(e.pid())));
                    return;
                }
                if (e.type() == EventType.EXEC)
                {
                    return; /* descriptors survive exec (but O_CLOEXEC ones, which the trace does not say) */
                }
                if (e.type() == null || !KernelEvents.is(e))
                {
                    return;
                }
                final Map<Integer, File> fds = table(e.pid());
                switch (e.type())
                {
                    case FILE_OPEN ->
                    {
                        final File f = new File(e.c(), e.b());
                        fds.put(KernelEvents.fd(e), f);
                        start('(', e);
                        file(f);
                        line.append(' ').append(e.d()).append(' ').append(fileType(KernelEvents.kind(e))).append(' ')
                            .append(e.text());
                    }
                    case FILE_CLOSE ->
                    {
                        final File f = fds.remove(KernelEvents.fd(e));
                        start(')', e);
                        file(f == null ? UNKNOWN : f);
                    }
                    case FILE_DUP ->
                    {
                        final File f = fds.get(KernelEvents.fd(e));
                        if (f == null)
                        {
                            fds.remove((int)e.b());
                        }
                        else
                        {
                            fds.put((int)e.b(), f);
                        }
                        return;
                    }
                    case FILE_READ, FILE_WRITE ->
                    {
                        start(e.type() == EventType.FILE_READ ? '<' : '>', e);
                        file(fds.getOrDefault(KernelEvents.fd(e), UNKNOWN));
                        line.append(' ').append(e.b() == ShmLayout.NO_OFFSET ? "-" : Long.toUnsignedString(e.b()))
                            .append(' ').append(e.c());
                    }
                    case FILE_TRUNCATE ->
                    {
                        start('t', e);
                        file(new File(e.d(), e.c()));
                        line.append(' ').append(e.b());
                    }
                    case FILE_UNLINK ->
                    {
                        start('-', e);
                        file(new File(e.d(), e.c()));
                    }
                    case SHMAT -> start('s', e).append(" 0x").append(Long.toHexString(e.b())).append(' ').append(e.c())
                        .append(' ').append(e.a());
                    case SHMDT -> start('U', e).append(" 0x").append(Long.toHexString(e.a())).append(' ').append(e.b());
                    default ->
                    {
                        return; /* rename: the inode stays */
                    }
                }
                text.append(line).append('\n');
            }

            @Override
            public void finish() throws IOException
            {
                text.flush();
            }
        };
    }
}
