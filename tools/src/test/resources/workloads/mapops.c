/*
 * mapops: one of each mapping change on a range traced through faultline_trace_range, each
 * announced on stdout with its addresses before it happens, so a test can expect the exact
 * events: mmap, mremap (a move), madvise(MADV_DONTNEED), munmap, fork, exec.
 *
 *   mapops            the whole sequence; the exec runs `mapops exec-child`
 */
#define _GNU_SOURCE
#include <faultline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

static void touch(volatile unsigned char *p, long pages, unsigned char v)
{
    for (long i = 0; i < pages; i++)
        p[i * PAGE] = (unsigned char)(v + i);
}

static unsigned long sum(volatile unsigned char *p, long pages)
{
    unsigned long s = 0;
    for (long i = 0; i < pages; i++)
        s += p[i * PAGE];
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "exec-child") == 0) {
        printf("exec-child ran\n");
        return 0;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    unsigned char *a = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("mmap %p %d\n", (void *)a, 8 * PAGE);
    if (faultline_trace_range)
        faultline_trace_range(a, 8 * PAGE);
    touch(a, 8, 10);
    /* a destination that is free: reserve then release it, so MREMAP_FIXED moves there */
    unsigned char *b = mmap(NULL, 8 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(b, 8 * PAGE);
    printf("mremap %p %d %p %d\n", (void *)a, 8 * PAGE, (void *)b, 8 * PAGE);
    unsigned char *moved = mremap(a, 8 * PAGE, 8 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, b);
    if (moved != b)
        return 3;
    unsigned long before = sum(b, 8);
    printf("madvise %p %d\n", (void *)(b + 2 * PAGE), 2 * PAGE);
    madvise(b + 2 * PAGE, 2 * PAGE, MADV_DONTNEED);
    unsigned long after = sum(b, 8);
    pid_t child = fork();
    if (child == 0) {
        unsigned long s = sum(b, 8);
        printf("child sum %lu\n", s);
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    printf("fork %d\n", (int)child);
    printf("munmap %p %d\n", (void *)b, 8 * PAGE);
    munmap(b, 8 * PAGE);
    printf("sums %lu %lu\n", before, after);
    printf("exec %s\n", argv[0]);
    execl(argv[0], argv[0], "exec-child", (char *)NULL);
    return 4;
}
