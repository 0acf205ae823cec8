/*
 * defer_race: faults that the agent must retry because a non-cooperative event is pending.
 *
 *   defer_race ROUNDS WINDOW
 *
 * Thread B runs an N+1 loop over WINDOW+1 traced pages (scope api, EVMS = WINDOW), so every
 * reference faults and the victim of each fault is the very page B touches next. Thread A
 * meanwhile maps, traces and unmaps a scratch page over and over: each munmap raises an UNMAP
 * event, and while one is pending the kernel answers EAGAIN to every resolution, so B's faults
 * are deferred and retried after the event is read. A retried fault must still evict its
 * victim before B runs again, or B's next reference would not fault and the trace would miss
 * it: B's trace must equal the FIFO model, ROUNDS * (WINDOW + 1) records, one per reference.
 * Prints the base address of B's pages and how many references it made.
 */
#include <faultline.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

static volatile int done;

static void *churn(void *arg)
{
    (void)arg;
    while (!done) {
        void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            break;
        faultline_trace_range(p, PAGE);
        munmap(p, PAGE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: defer_race ROUNDS WINDOW\n");
        return 2;
    }
    long rounds = atol(argv[1]), window = atol(argv[2]), pages = window + 1;
    volatile unsigned char *base = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (long i = 0; i < pages; i++)
        base[i * PAGE] = (unsigned char)i;
    faultline_trace_range((void *)base, pages * PAGE);
    pthread_t a;
    pthread_create(&a, NULL, churn, NULL);
    unsigned long sum = 0, refs = 0;
    for (long r = 0; r < rounds; r++)
        for (long i = 0; i < pages; i++, refs++)
            sum += base[i * PAGE];
    done = 1;
    pthread_join(a, NULL);
    printf("base=%p refs=%lu sum=%lu\n", (void *)base, refs, sum);
    return 0;
}
