package io.faultline.format;

/**
 * The kernel events' fields decoded (event types 17 to 26: open, close, dup, read, write,
 * truncate, unlink, rename, shmat, shmdt; trace-format/FORMAT.md, "Kernel events"), and one
 * legible line of each for {@code faultline dump}. The events are kVMTrace's kernel records
 * (Kaplan's kVMTrace kernel patch, include/linux/kvmtrace.h), as the agent's system-call gate
 * sees them from user space.
 */
public final class KernelEvents
{
    /** AT_FDCWD, as a dirfd field holds it. */
    public static final int AT_FDCWD = -100;

    private KernelEvents()
    {
    }

    /** Whether the event is a kernel event. */
    public static boolean is(final TraceEvent e)
    {
        return e.type() != null && e.type().code() >= EventType.FILE_OPEN.code() && e.type().code() <= EventType.SHMDT.code();
    }

    /** The descriptor of an open, close, dup (the old one), read, write or truncate event (-1: truncate by path). */
    public static int fd(final TraceEvent e)
    {
        return (int)e.a();
    }

    /** An open event's kind, ShmLayout.FILE_*. */
    public static int kind(final TraceEvent e)
    {
        return (int)((e.a() >>> 32) & 0xff);
    }

    /** The device field of an open (b), truncate or unlink (c) event, as MAJOR:MINOR. */
    public static String device(final long device)
    {
        return (device >>> 32) + ":" + (device & 0xffffffffL);
    }

    /** A read or write event's offset, or -1 when the call had none. */
    public static long offset(final TraceEvent e)
    {
        return e.b();
    }

    /** The device and inode an event names, (device, inode), or null if it names none itself. */
    public static long[] deviceInode(final TraceEvent e)
    {
        return switch (e.type())
        {
            case FILE_OPEN -> new long[] {e.b(), e.c()};
            case FILE_TRUNCATE, FILE_UNLINK -> new long[] {e.c(), e.d()};
            default -> null;
        };
    }

    /** A rename event's old path (text before the NUL). */
    public static String renameFrom(final TraceEvent e)
    {
        final int nul = e.text().indexOf('\0');
        return nul < 0 ? e.text() : e.text().substring(0, nul);
    }

    /** A rename event's new path (text after the NUL). */
    public static String renameTo(final TraceEvent e)
    {
        final int nul = e.text().indexOf('\0');
        return nul < 0 ? "" : e.text().substring(nul + 1);
    }

    /** The x86-64 name of a read, write or dup event's system call number. */
    public static String callName(final long nr)
    {
        return switch ((int)nr)
        {
            case 0 -> "read";
            case 1 -> "write";
            case 17 -> "pread64";
            case 18 -> "pwrite64";
            case 19 -> "readv";
            case 20 -> "writev";
            case 32 -> "dup";
            case 33 -> "dup2";
            case 72 -> "fcntl";
            case 292 -> "dup3";
            case 295 -> "preadv";
            case 296 -> "pwritev";
            case 327 -> "preadv2";
            case 328 -> "pwritev2";
            default -> "syscall-" + nr;
        };
    }

    private static String dirfd(final long field)
    {
        return (int)field == AT_FDCWD ? "AT_FDCWD" : Integer.toString((int)field);
    }

    /** The event's fields in words, as {@code faultline dump} prints them after the event's name. */
    public static void describe(final StringBuilder line, final TraceEvent e)
    {
        switch (e.type())
        {
            case FILE_OPEN -> line.append(" fd=").append(fd(e)).append(' ').append(ShmLayout.fileKind(kind(e)))
                .append(" dev=").append(device(e.b())).append(" inode=").append(e.c()).append(" length=").append(e.d())
                .append(' ').append(e.text());
            case FILE_CLOSE -> line.append(" fd=").append(fd(e));
            case FILE_DUP -> line.append(" fd=").append(fd(e)).append(" to fd=").append((int)e.b()).append(" (")
                .append(callName(e.c())).append(')');
            case FILE_READ, FILE_WRITE -> line.append(" fd=").append(fd(e)).append(" offset=")
                .append(e.b() == ShmLayout.NO_OFFSET ? "none" : Long.toUnsignedString(e.b())).append(" bytes=").append(e.c())
                .append(" (").append(callName(e.d())).append(')');
            case FILE_TRUNCATE -> line.append(fd(e) < 0 ? " path" : " fd=" + fd(e)).append(" length=").append(e.b())
                .append(" dev=").append(device(e.c())).append(" inode=").append(e.d())
                .append(e.text().isEmpty() ? "" : " " + e.text());
            case FILE_UNLINK -> line.append(" dirfd=").append(dirfd(e.a())).append(e.b() == 0 ? "" : " flags=0x"
                + Long.toHexString(e.b())).append(" dev=").append(device(e.c())).append(" inode=").append(e.d())
                .append(' ').append(e.text());
            case FILE_RENAME -> line.append(" dirfd=").append(dirfd(e.a())).append(' ').append(renameFrom(e))
                .append(" to dirfd=").append(dirfd(e.b())).append(' ').append(renameTo(e)).append(" inode=").append(e.d())
                .append(e.c() == 0 ? "" : " flags=0x" + Long.toHexString(e.c()));
            case SHMAT -> line.append(" shmid=").append(e.a()).append(" address=0x").append(Long.toHexString(e.b()))
                .append(" size=").append(e.c()).append(e.d() == 0 ? "" : " shmflg=0x" + Long.toHexString(e.d()));
            case SHMDT -> line.append(" address=0x").append(Long.toHexString(e.a())).append(" size=").append(e.b())
                .append(" shmid=").append(e.c() == -1 ? "unknown" : Long.toString(e.c()));
            default -> throw new IllegalArgumentException("not a kernel event: " + e.type());
        }
    }
}
