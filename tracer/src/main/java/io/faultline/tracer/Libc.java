package io.faultline.tracer;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** The few libc calls the recorder makes through JNA: probing, signalling, identities. */
interface Libc extends Library
{
    Libc INSTANCE = Native.load("c", Libc.class);

    long SYS_USERFAULTFD = 323; // x86-64
    int O_CLOEXEC = 02000000;
    int O_NONBLOCK = 04000;
    int O_RDWR = 2;

    long syscall(long number, Object... args);

    int open(String path, int flags);

    int close(int fd);

    int kill(int pid, int signal);

    int getuid();

    int geteuid();

    int getegid();

    int getpagesize();

    String strerror(int errnum);
}
