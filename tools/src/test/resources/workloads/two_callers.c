/*
 * two_callers: the trapped references of two known functions in a known ratio, for call-stack
 * tests (CallSitesTest). Each round, touch_a writes one byte to each of A_PAGES pages of its own
 * buffer, then touch_b to each of B_PAGES pages of another: with an EVMS smaller than both
 * buffers together every write traps, so touch_a makes 3 trapped references for each of touch_b's
 * (48 and 16 per round). Both are called from main, never inlined; built with frame pointers.
 *
 *   two_callers ROUNDS [api]    api: register the two buffers with faultline_trace_range (scope api)
 */
#define _GNU_SOURCE
#include <faultline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096
#define A_PAGES 48
#define B_PAGES 16

__attribute__((noinline)) void touch_a(volatile char *a, int round)
{
    for (long p = 0; p < A_PAGES; p++)
        a[p * PAGE] = (char)(p + round);
}

__attribute__((noinline)) void touch_b(volatile char *b, int round)
{
    for (long p = 0; p < B_PAGES; p++)
        b[p * PAGE + 1] = (char)(p - round);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    int api = argc > 2 && strcmp(argv[2], "api") == 0;
    char *a = mmap(NULL, A_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *b = mmap(NULL, B_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED || b == MAP_FAILED)
        return 1;
    if (api && (!faultline_trace_range || faultline_trace_range(a, A_PAGES * PAGE) || faultline_trace_range(b, B_PAGES * PAGE)))
        return 2;
    for (int r = 0; r < rounds; r++) {
        touch_a(a, r);
        touch_b(b, r);
    }
    long sum = 0;
    for (long p = 0; p < A_PAGES; p++)
        sum += a[p * PAGE];
    printf("two_callers a %p b %p sum %ld\n", (void *)a, (void *)b, sum);
    return 0;
}
