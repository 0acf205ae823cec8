/*
 * pingpong: a parent and its forked child take turns touching pages, so the order of their
 * references is fixed by the program: parent page 0, child page 1, parent page 2, ... Each
 * waits for the other through a pipe before its next touch.
 *
 *   pingpong PAGES
 *
 * Prints the base address of the PAGES-page private anonymous mapping both touch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

static void pass(int fd)
{
    char c = 'x';
    if (write(fd, &c, 1) != 1)
        exit(1);
}

static void await(int fd)
{
    char c;
    if (read(fd, &c, 1) != 1)
        exit(1);
}

int main(int argc, char **argv)
{
    long pages = argc > 1 ? atol(argv[1]) : 64;
    volatile unsigned char *base = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int to_child[2], to_parent[2];
    if (base == MAP_FAILED || pipe(to_child) || pipe(to_parent)) {
        perror("pingpong");
        return 1;
    }
    printf("base=%p\n", (void *)base);
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    int me = child == 0 ? 1 : 0;
    int out = child == 0 ? to_parent[1] : to_child[1];
    int in = child == 0 ? to_child[0] : to_parent[0];
    for (long p = 0; p < pages; p++) {
        if (p % 2 != me)
            continue;
        if (p > 0)
            await(in);
        base[p * PAGE] = (unsigned char)p;
        pass(out);
    }
    if (child == 0)
        return 0;
    int status;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
