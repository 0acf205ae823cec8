package io.faultline.tracer;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * The few libc calls the recorder makes through JNA: probing, signalling, identities, and the
 * monitor's calls to reach an agent (pidfd_open, pidfd_getfd, futex, process_madvise, write).
 */
public interface Libc extends Library
{
    Libc INSTANCE = Native.load("c", Libc.class);

    // x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl)
    long SYS_USERFAULTFD = 323;
    long SYS_FUTEX = 202;
    long SYS_PIDFD_OPEN = 434;
    long SYS_PIDFD_GETFD = 438;
    long SYS_PROCESS_MADVISE = 440;
    int FUTEX_WAIT = 0;
    int MADV_WILLNEED = 3;
    int MADV_COLD = 20;
    int MADV_PAGEOUT = 21;
    int MADV_HUGEPAGE = 14;
    int MADV_NOHUGEPAGE = 15;
    int O_CLOEXEC = 02000000;
    int O_NONBLOCK = 04000;
    int O_RDWR = 2;

    long syscall(long number, Object... args);

    int open(String path, int flags);

    int close(int fd);

    long write(int fd, Pointer buffer, long count);

    int kill(int pid, int signal);

    int getuid();

    int geteuid();

    int getegid();

    int getpagesize();

    /** setpriority(2); with PRIO_PROCESS and a thread id, Linux sets that one thread's nice value. */
    int setpriority(int which, int who, int prio);

    String strerror(int errnum);
}
