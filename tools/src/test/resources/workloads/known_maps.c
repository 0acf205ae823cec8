/*
 * known_maps: references to memory whose mappings are known, each announced with its address
 * so that a test can check the name the trace gives it:
 *   "bss ADDR"          a static array: the anonymous tail of the executable's data (its .bss)
 *   "heap ADDR"         a small malloc block: [heap]
 *   "anon ADDR"         an anonymous mmap of 4 pages, each written: [anon]
 *   "stack ADDR"        the main thread's stack: [stack]
 *   "thread TID ADDR"   a thread's stack (glibc maps it anonymously): [stack:TID]
 * then "sum N" of what it wrote, so that a traced run's output can be checked against a native one.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

static char bss[3 * PAGE];

static void *thread_main(void *arg)
{
    volatile char local[2 * PAGE];
    memset((char *)local, 7, sizeof local);
    printf("thread %d %p\n", gettid(), (void *)local);
    *(long *)arg = local[0] + local[PAGE];
    return NULL;
}

int main(void)
{
    long sum = 0;
    memset(bss, 1, sizeof bss);
    printf("bss %p\n", (void *)bss);
    char *heap = malloc(64);
    memset(heap, 2, 64);
    printf("heap %p\n", (void *)heap);
    char *anon = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (anon == MAP_FAILED)
        return 1;
    for (int i = 0; i < 4; i++)
        anon[i * PAGE] = 3;
    printf("anon %p\n", (void *)anon);
    volatile char stack[2 * PAGE];
    memset((char *)stack, 4, sizeof stack);
    printf("stack %p\n", (void *)stack);
    fflush(stdout);
    /* the mapping lives some 50 ms more: the test's report regions aggregates every 5 ms of the
     * trace's time, and on a quiet machine the whole program ran in less than one aggregation */
    struct timespec pause = { 0, 50 * 1000 * 1000 };
    nanosleep(&pause, NULL);
    pthread_t t;
    long from_thread = 0;
    if (pthread_create(&t, NULL, thread_main, &from_thread) != 0 || pthread_join(t, NULL) != 0)
        return 1;
    for (int i = 0; i < 3; i++)
        sum += bss[i * PAGE];
    sum += heap[0] + anon[PAGE] + stack[PAGE] + from_thread;
    printf("sum %ld\n", sum);
    return 0;
}
