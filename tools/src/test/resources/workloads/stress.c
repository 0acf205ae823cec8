/*
 * stress: THREADS threads hammer a shared array (atomic adds) and their own private pages for
 * ITERATIONS steps each, in a pattern that touches a different page on almost every step, so a
 * tiny EVMS faults constantly and threads race on the same pages. The final sums are fixed by
 * the arguments: a traced run must print exactly what a native run prints.
 *
 *   stress THREADS ITERATIONS SHARED_PAGES PRIVATE_PAGES
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096

static int threads;
static long iterations, shared_pages, private_pages;
static unsigned long *shared;

struct worker { int index; unsigned long *mine; unsigned long sum; };

static void *hammer(void *arg)
{
    struct worker *w = arg;
    size_t words = PAGE / sizeof(unsigned long);
    for (long i = 0; i < iterations; i++) {
        long sp = (i * 7 + w->index) % shared_pages;
        long pp = (i * 3 + w->index) % private_pages;
        __atomic_fetch_add(&shared[sp * words + (i % words)], 1, __ATOMIC_RELAXED);
        w->mine[pp * words + (i % words)] += (unsigned long)i;
        w->sum += w->mine[pp * words];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    threads = atoi(argv[1]);
    iterations = atol(argv[2]);
    shared_pages = atol(argv[3]);
    private_pages = atol(argv[4]);
    shared = calloc(shared_pages * PAGE / sizeof(unsigned long), sizeof(unsigned long));
    struct worker *workers = calloc(threads, sizeof *workers);
    pthread_t *ids = calloc(threads, sizeof *ids);
    for (int t = 0; t < threads; t++) {
        workers[t].index = t;
        workers[t].mine = calloc(private_pages * PAGE / sizeof(unsigned long), sizeof(unsigned long));
        pthread_create(&ids[t], NULL, hammer, &workers[t]);
    }
    unsigned long total = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        total += workers[t].sum;
        for (long i = 0; i < private_pages * PAGE / (long)sizeof(unsigned long); i++)
            total += workers[t].mine[i] * 31;
    }
    unsigned long shared_total = 0;
    for (long i = 0; i < shared_pages * PAGE / (long)sizeof(unsigned long); i++)
        shared_total += shared[i];
    printf("stress threads=%d shared=%lu (expect %ld) total=%lu\n", threads, shared_total,
           (long)threads * iterations, total);
    return shared_total == (unsigned long)threads * iterations ? 0 : 1;
}
