/*
 * threads: THREADS workers, each with a private range of PAGES pages that it registers with
 * faultline_trace_range and then writes page by page, twice. Prints one line per worker:
 * "worker N tid T base 0x..." so a test can attribute every page to its thread.
 *
 *   threads THREADS PAGES
 */
#define _GNU_SOURCE
#include <faultline.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

static long pages;
static pthread_barrier_t registered;

struct worker { int index; pid_t tid; volatile unsigned char *base; unsigned long sum; };

static void *work(void *arg)
{
    struct worker *w = arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", w->index);
    pthread_setname_np(pthread_self(), name);
    w->tid = gettid();
    w->base = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (w->base == MAP_FAILED || (faultline_trace_range && faultline_trace_range((void *)w->base, pages * PAGE)))
        abort();
    pthread_barrier_wait(&registered);
    for (int round = 0; round < 2; round++)
        for (long p = 0; p < pages; p++)
            w->base[p * PAGE + w->index] = (unsigned char)(p + round + w->index);
    for (long p = 0; p < pages; p++)
        w->sum += w->base[p * PAGE + w->index];
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    pages = argc > 2 ? atol(argv[2]) : 16;
    struct worker *workers = calloc(threads, sizeof *workers);
    pthread_t *ids = calloc(threads, sizeof *ids);
    pthread_barrier_init(&registered, NULL, threads);
    for (int i = 0; i < threads; i++) {
        workers[i].index = i;
        pthread_create(&ids[i], NULL, work, &workers[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(ids[i], NULL);
    for (int i = 0; i < threads; i++)
        printf("worker %d tid %d base %p sum %lu\n", i, (int)workers[i].tid, (void *)workers[i].base, workers[i].sum);
    return 0;
}
