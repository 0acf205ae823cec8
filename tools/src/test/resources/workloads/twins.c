/*
 * twins: PROCS processes (the main one and PROCS-1 forked children) run at once over one
 * region of PAGES pages mapped before the forks, so that each sees it at the same addresses:
 * the keys mrc and simulate give their references (address over page size, whatever the
 * process) are shared, and the order in which the recorder interleaves the processes decides
 * every LRU distance. Process i writes page (j * (2i + 1)) mod PAGES for j = 0, 1, ..., ROUNDS
 * times over, a different walk each. Prints "twins ok SUM" from the main process once all are done.
 *
 *   twins PROCS PAGES ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

int main(int argc, char **argv)
{
    int procs = argc > 1 ? atoi(argv[1]) : 3;
    long pages = argc > 2 ? atol(argv[2]) : 256;
    long rounds = argc > 3 ? atol(argv[3]) : 10;
    volatile unsigned char *base = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("twins");
        return 1;
    }
    int me = 0;
    for (int i = 1; i < procs; i++) {
        pid_t child = fork();
        if (child < 0) {
            perror("fork");
            return 1;
        }
        if (child == 0) {
            me = i;
            break;
        }
    }
    unsigned long sum = 0;
    for (long r = 0; r < rounds; r++)
        for (long j = 0; j < pages; j++) {
            long page = (j * (2 * me + 1)) % pages;
            base[page * PAGE + me] += (unsigned char)(r + 1);
            sum += base[page * PAGE + me];
        }
    if (me != 0)
        return sum == 0; /* never: every byte written is non-zero at its first round */
    int failed = 0, status;
    while (wait(&status) > 0)
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    printf("twins ok %lu\n", sum);
    return failed;
}
