package io.faultline.damon.live;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/** The system calls the monitor makes to reach an agent: pidfd_open, pidfd_getfd, futex, write (JNA). */
interface LinuxCalls extends Library
{
    LinuxCalls INSTANCE = Native.load("c", LinuxCalls.class);

    // x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl)
    long SYS_FUTEX = 202;
    long SYS_PIDFD_OPEN = 434;
    long SYS_PIDFD_GETFD = 438;
    long SYS_PROCESS_MADVISE = 440;
    int MADV_WILLNEED = 3;
    int MADV_COLD = 20;
    int MADV_PAGEOUT = 21;
    int MADV_HUGEPAGE = 14;
    int MADV_NOHUGEPAGE = 15;
    int FUTEX_WAIT = 0;

    long syscall(long number, Object... args);

    long write(int fd, Pointer buffer, long count);

    int close(int fd);

    String strerror(int errnum);
}
