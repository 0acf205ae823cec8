/*
 * remap_race: a traced range is unmapped (or zapped by madvise) while another thread's fault
 * waits in the same batch of the handler. Reading the event releases the thread that raised it
 * at once, so an agent that resolves the batch's fault against its old table breaks memory:
 *   unmap:    the thread maps new memory at the same address behind the agent's back (a raw
 *             syscall, as glibc's malloc maps internally) and writes it; evicting the oldest
 *             enabled page of the gone range moves the new mapping's page into the old range's
 *             parking slot, and the data is lost when the slot is freed;
 *   dontneed: the other thread's fault is on a parked page of the zapped range; moving it back
 *             after the kernel's zap brings old data back into memory that must read zero.
 *
 * Run with FAULTLINE_TEST_EVENT_DELAY_US (the handler sleeps after reading a batch that holds an
 * event, so both steps fall into the window) and an EVMS smaller than PAGES, so the oldest
 * enabled pages belong to the range that goes away.
 *
 *   remap_race unmap|dontneed ROUNDS PAGES PAUSE_US
 *
 * Prints the rounds that mapped the same address again and the pages that read back wrong.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096

/* in a shared mapping: never traced, so waiting on it faults nowhere */
struct control {
    volatile int round;
    volatile int faulted;
    unsigned char *volatile target; /* dontneed: the page the other thread reads */
};

static struct control *ctl;
static long rounds;

static void *toucher(void *arg)
{
    (void)arg;
    unsigned char *mine = mmap(NULL, (size_t)(rounds + 1) * PAGE, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mine == MAP_FAILED)
        return NULL;
    for (long r = 1; r <= rounds; r++) {
        while (ctl->round < r)
            usleep(100);
        if (ctl->target)
            (void)*(volatile unsigned char *)ctl->target; /* a parked page: it faults */
        else
            mine[r * PAGE] = 1; /* a first touch: it faults, and waits in the handler's queue */
        ctl->faulted = (int)r;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[1], "unmap") != 0 && strcmp(argv[1], "dontneed") != 0)) {
        fprintf(stderr, "usage: remap_race unmap|dontneed ROUNDS PAGES PAUSE_US\n");
        return 2;
    }
    int dontneed = strcmp(argv[1], "dontneed") == 0;
    rounds = atol(argv[2]);
    long pages = atol(argv[3]);
    long pause_us = atol(argv[4]);
    ctl = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (ctl == MAP_FAILED)
        return 3;
    pthread_t thread;
    pthread_create(&thread, NULL, toucher, NULL);
    size_t len = (size_t)pages * PAGE;
    long bad = 0, same_address = 0;
    for (long r = 1; r <= rounds; r++) {
        unsigned char *decoy = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        unsigned char *old = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (decoy == MAP_FAILED || old == MAP_FAILED)
            return 3;
        for (long p = 0; p < pages; p++)
            old[p * PAGE] = 0xee; /* the EVMS now holds the last pages of this range */
        munmap(decoy, PAGE);      /* the handler reads this event, then sleeps */
        if (dontneed)
            ctl->target = old;    /* the first page: evicted long ago, parked */
        ctl->round = (int)r;      /* meanwhile the other thread faults... */
        usleep(pause_us / 5);
        if (dontneed) {
            madvise(old, len, MADV_DONTNEED); /* ...and this event joins its fault */
            usleep(pause_us * 3);
            for (long p = 0; p < pages; p++)
                if (old[p * PAGE] != 0)
                    bad++;
            munmap(old, len);
            while (ctl->faulted < r)
                usleep(100);
            continue;
        }
        munmap(old, len);         /* ...and this event joins its fault in the next batch */
        unsigned char *fresh = (unsigned char *)syscall(SYS_mmap, old, len, PROT_READ | PROT_WRITE,
                                                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (fresh == MAP_FAILED) {
            while (ctl->faulted < r)
                usleep(100);
            continue;
        }
        same_address++;
        for (long p = 0; p < pages; p++)
            memset(fresh + p * PAGE, (int)((r + p) & 0x7f) + 1, PAGE);
        usleep(pause_us * 3); /* the handler resolves the batch now */
        for (long p = 0; p < pages; p++)
            for (long b = 0; b < PAGE; b += 512)
                if (fresh[p * PAGE + b] != (unsigned char)(((r + p) & 0x7f) + 1)) {
                    bad++;
                    break;
                }
        syscall(SYS_munmap, fresh, len);
        while (ctl->faulted < r)
            usleep(100);
    }
    pthread_join(thread, NULL);
    printf("remap_race rounds=%ld same_address=%ld bad_pages=%ld\n", rounds, same_address, bad);
    return bad != 0;
}
