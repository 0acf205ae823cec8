/*
 * advice: each advice that zaps a range (MADV_FREE, MADV_DONTNEED), on a range traced through
 * faultline_trace_range, given through libc's madvise and as a raw system call (as glibc gives
 * its own), so a test can expect the exact madvise events with their advice.
 *
 *   advice ROUNDS     ROUNDS times: write 8 pages, MADV_FREE pages 2-3, MADV_DONTNEED page 5,
 *                     then MADV_FREE page 7 by syscall(2); at the end, page 5's first byte
 */
#define _GNU_SOURCE
#include <faultline.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    setvbuf(stdout, NULL, _IONBF, 0);
    volatile unsigned char *a = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED)
        return 2;
    if (faultline_trace_range)
        faultline_trace_range((void *)a, 8 * PAGE);
    printf("range %p\n", (void *)a);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 8; i++)
            a[i * PAGE] = (unsigned char)(r + i + 1);
        printf("free %d %d\n", 2 * PAGE, 2 * PAGE);
        if (madvise((void *)(a + 2 * PAGE), 2 * PAGE, MADV_FREE))
            return 3;
        printf("dontneed %d %d\n", 5 * PAGE, PAGE);
        if (madvise((void *)(a + 5 * PAGE), PAGE, MADV_DONTNEED))
            return 4;
        printf("raw free %d %d\n", 7 * PAGE, PAGE);
        if (syscall(SYS_madvise, (void *)(a + 7 * PAGE), PAGE, MADV_FREE))
            return 5;
    }
    /* MADV_FREE's pages may keep their data until the kernel reclaims them: only the zapped one is known */
    printf("page 5 reads %d\n", a[5 * PAGE]);
    return 0;
}
