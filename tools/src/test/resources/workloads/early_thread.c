/*
 * early_thread: a thread created by a constructor, before main runs, fills a malloc'd buffer
 * of PAGES pages (one write per page, then a read of every page) while main waits for it.
 * Prints the thread's tid and buffer, and a sum that a native run prints too.
 *
 *   early_thread PAGES
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096

static pthread_t early;
static long pages = 32;
static volatile unsigned char *buffer;
static long early_tid;
static unsigned long early_sum;

static void *fill(void *arg)
{
    (void)arg;
    early_tid = syscall(SYS_gettid);
    buffer = malloc(pages * PAGE);
    for (long p = 0; p < pages; p++)
        buffer[p * PAGE + p % PAGE] = (unsigned char)(p * 5 + 3);
    for (long p = 0; p < pages; p++)
        early_sum = early_sum * 31 + buffer[p * PAGE + p % PAGE];
    return NULL;
}

__attribute__((constructor)) static void before_main(void)
{
    const char *env = getenv("EARLY_PAGES");
    if (env)
        pages = atol(env);
    pthread_create(&early, NULL, fill, NULL);
}

int main(void)
{
    pthread_join(early, NULL);
    printf("early tid %ld base %p\n", early_tid, (void *)buffer);
    printf("sum %lu\n", early_sum);
    return 0;
}
