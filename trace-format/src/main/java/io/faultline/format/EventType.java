package io.faultline.format;

/** Event types, with the codes of {@code FL_EV_*} in faultline_shm.h and what a, b, c, d hold. */
public enum EventType
{
    PROCESS_START(1, "process-start", "a=ppid b=slot text=executable"),
    PROCESS_EXIT(2, "process-exit", "a=exit status (128+N for signal N; -1 for a child, whose status its parent collects)"),
    THREAD_START(3, "thread-start", "a=creating tid b=its descriptor (top of its stack)"),
    THREAD_EXIT(4, "thread-exit", ""),
    THREAD_NAME(5, "thread-name", "text=comm"),
    TRACE_RANGE(6, "trace-range", "a=start b=length c=source (0 maps scan, 1 api, 2 new mapping) text=mapping name"),
    MMAP(7, "mmap", "a=start b=length c=prot d=flags"),
    MUNMAP(8, "munmap", "a=start b=length"),
    MREMAP(9, "mremap", "a=old start b=old length c=new start d=new length"),
    MADVISE(10, "madvise", "a=start b=length c=advice"),
    BRK(11, "brk", "a=old break b=new break"),
    FORK(12, "fork", "a=child pid"),
    EXEC(13, "exec", "text=path"),
    TRACE_STOP(14, "trace-stop", "a=reason (1 recorder gone, 2 stop requested, 3 error, 4 exec, 5 core-dumping signal) b=errno"),
    UNTRACE_RANGE(15, "untrace-range", "a=start b=length"),
    EVICT(16, "evict", "tid=thread that brought the page in a=page b=tag (r, w, R, W as ASCII) c=1 if deleted before its turn"),
    FILE_OPEN(17, "open", "a=fd | kind << 32 b=device (major << 32 | minor) c=inode d=length at open text=resolved path"),
    FILE_CLOSE(18, "close", "a=fd"),
    FILE_DUP(19, "dup", "a=old fd b=new fd c=system call number"),
    FILE_READ(20, "read", "a=fd b=offset (-1: none) c=bytes d=system call number"),
    FILE_WRITE(21, "write", "a=fd b=offset (-1: none) c=bytes d=system call number"),
    FILE_TRUNCATE(22, "truncate", "a=fd (-1: by path) b=new length c=device d=inode text=path as given"),
    FILE_UNLINK(23, "unlink", "a=dirfd b=flags c=device d=inode text=path as given"),
    FILE_RENAME(24, "rename", "a=old dirfd b=new dirfd c=flags d=inode text=old path NUL new path"),
    SHMAT(25, "shmat", "a=shmid b=address c=size d=shmflg"),
    SHMDT(26, "shmdt", "a=address b=size c=shmid (of the shmat that attached it)"),
    UNTRACED(27, "untraced", "a=its pid b=why (1 statically linked, 2 set-ID or file capabilities, 3 another architecture, "
        + "4 its environment lacks the agent, 5 other; 0 the exec said before failed) c=ELF class << 16 | machine text=executable"),
    STACK(32, "stack", "a=stack id (per process image) b=frames text=frames in hex, innermost first"),
    CODE_MAP(33, "code-map", "a=start b=end c=file offset text=path");

    private static final EventType[] BY_CODE = new EventType[maxCode() + 1];

    static
    {
        for (final EventType type : values())
        {
            BY_CODE[type.code] = type;
        }
    }

    private static int maxCode()
    {
        int max = 0;
        for (final EventType type : values())
        {
            max = Math.max(max, type.code);
        }
        return max;
    }

    private final int code;
    private final String label;
    private final String fields;

    EventType(final int code, final String label, final String fields)
    {
        this.code = code;
        this.label = label;
        this.fields = fields;
    }

    public int code()
    {
        return code;
    }

    /** The word used by {@code faultline dump}. */
    public String label()
    {
        return label;
    }

    /** What the numeric fields hold, for documentation and dumps. */
    public String fields()
    {
        return fields;
    }

    /** @return the type, or null for a code this version does not know */
    public static EventType of(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
