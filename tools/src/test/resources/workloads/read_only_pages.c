/*
 * read_only_pages: memory the program makes read-only after writing it, then reads pass after
 * pass. Under a small EVMS every pass references every page again; an engine that cannot move
 * a page whose protection the program changed leaves it enabled after its first reference, and
 * the later passes go unrecorded. Prints what a native run prints.
 *
 *   read_only_pages PAGES PASSES
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096

int main(int argc, char **argv)
{
    int pages = argc > 1 ? atoi(argv[1]) : 64;
    int passes = argc > 2 ? atoi(argv[2]) : 4;
    unsigned char *m = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (int i = 0; i < pages; i++)
        m[(size_t)i * PAGE + (size_t)(i % 97)] = (unsigned char)(i * 13 + 5);
    if (mprotect(m, (size_t)pages * PAGE, PROT_READ) != 0) {
        perror("mprotect");
        return 1;
    }
    uint64_t sum = 0;
    for (int p = 0; p < passes; p++)
        for (int i = 0; i < pages; i++)
            sum = sum * 31 + m[(size_t)i * PAGE + (size_t)(i % 97)];
    printf("pages=%d passes=%d sum=%llu\n", pages, passes, (unsigned long long)sum);
    return 0;
}
