/*
 * rawfork: forks behind glibc's back, with syscall(SYS_fork), syscall(SYS_clone) and
 * syscall(SYS_clone3) without CLONE_VM, after filling a buffer most of whose pages a small EVMS
 * has parked. Parent and child print a checksum of the buffer: the same as a native run, or a
 * child saw holes where the agent's parked pages were.
 *
 *   rawfork PAGES
 */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static unsigned long checksum(const volatile unsigned char *p, long pages)
{
    unsigned long s = 0;
    for (long i = 0; i < pages * PAGE; i += 64)
        s = s * 31 + p[i];
    return s;
}

int main(int argc, char **argv)
{
    long pages = argc > 1 ? atol(argv[1]) : 64;
    setvbuf(stdout, NULL, _IONBF, 0);
    volatile unsigned char *buf = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return 3;
    for (long i = 0; i < pages * PAGE; i += 64)
        buf[i] = (unsigned char)(i / 64 * 7 + 1);
    printf("parent %lu\n", checksum(buf, pages));
    const char *how[] = { "fork", "clone", "clone3" };
    struct clone_args args;
    for (int k = 0; k < 3; k++) {
        long pid;
        if (k == 0) {
            pid = syscall(SYS_fork);
        } else if (k == 1) {
            pid = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
        } else {
            memset(&args, 0, sizeof args);
            args.exit_signal = SIGCHLD;
            pid = syscall(SYS_clone3, &args, sizeof args);
        }
        if (pid < 0) {
            perror(how[k]);
            return 4;
        }
        if (pid == 0) {
            /* clone3's child reads the clone_args the call read: their stack page must be whole */
            if (k == 2 && ((volatile struct clone_args *)&args)->exit_signal != SIGCHLD)
                _exit(5);
            printf("%s child %lu\n", how[k], checksum(buf, pages));
            _exit(0);
        }
        int status = 0;
        waitpid((pid_t)pid, &status, 0);
        /* the parent writes after the fork: its pages must still be its own */
        for (long i = 0; i < pages * PAGE; i += 4096)
            buf[i] ^= (unsigned char)(k + 1);
        printf("%s parent %lu status %d\n", how[k], checksum(buf, pages), status);
    }
    return 0;
}
