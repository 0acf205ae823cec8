/*
 * own_segv: a program with its own SIGSEGV handler and its own mprotect calls on memory that
 * scope all traces. Under the mprotect engine the agent's SIGSEGV handler comes first: the
 * program must still get every fault of its own, and keep the protections it set, through
 * the agent's evictions and enablings of the same pages. Prints what a native run prints.
 *
 *   own_segv PAGES
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096

static sigjmp_buf back;
static volatile int faults;
static void *volatile last;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    faults++;
    last = si->si_addr;
    siglongjmp(back, 1);
}

/* 1 if the access faulted into on_segv at addr */
static int faulted_read(volatile unsigned char *addr)
{
    if (sigsetjmp(back, 1))
        return last == (void *)addr;
    (void)*addr;
    return 0;
}

static int faulted_write(volatile unsigned char *addr, unsigned char v)
{
    if (sigsetjmp(back, 1))
        return last == (void *)addr;
    *addr = v;
    return 0;
}

static uint64_t pass(unsigned char *m, int pages)
{
    uint64_t sum = 0;
    for (int i = 0; i < pages; i++)
        if (i != 7)
            sum = sum * 31 + m[(size_t)i * PAGE + (size_t)(i % 64)];
    return sum;
}

int main(int argc, char **argv)
{
    int pages = argc > 1 ? atoi(argv[1]) : 64;
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) {
        perror("sigaction");
        return 1;
    }
    struct sigaction back_again;
    sigaction(SIGSEGV, NULL, &back_again);
    int kept = back_again.sa_sigaction == on_segv;

    unsigned char *m = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *guard = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || guard == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (int i = 0; i < pages; i++)
        m[(size_t)i * PAGE + (size_t)(i % 64)] = (unsigned char)(i * 7 + 1);

    int handled = 0;
    handled += faulted_read(guard);                           /* its own guard page */
    if (mprotect(m + 5 * PAGE, PAGE, PROT_READ) != 0)          /* traced memory made read-only */
        perror("mprotect");
    uint64_t sum = pass(m, pages);                             /* reads work, page 5 included */
    handled += faulted_write(m + 5 * PAGE + 5, 9);
    sum = sum * 31 + pass(m, pages);                           /* evicts page 5 under a small EVMS */
    handled += faulted_write(m + 5 * PAGE + 6, 9);             /* still read-only once enabled again */
    mprotect(m + 7 * PAGE, PAGE, PROT_NONE);
    handled += faulted_read(m + 7 * PAGE);
    sum = sum * 31 + pass(m, pages);
    handled += faulted_read(m + 7 * PAGE);                     /* still its own after the pass */
    mprotect(m + 5 * PAGE, PAGE, PROT_READ | PROT_WRITE);
    mprotect(m + 7 * PAGE, PAGE, PROT_READ | PROT_WRITE);
    m[5 * PAGE + 5] = 42;                                       /* writable again: no fault */
    sum = sum * 31 + m[7 * PAGE + 7] + pass(m, pages);
    printf("kept=%d faults=%d handled=%d sum=%llu\n", kept, faults, handled, (unsigned long long)sum);
    return 0;
}
