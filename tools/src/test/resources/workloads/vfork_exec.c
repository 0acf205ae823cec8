/*
 * vfork_exec: vfork() and execv() of PROGRAM in the child, then the parent goes on writing its
 * own memory. The child runs in the parent's memory until the exec, so it also runs the
 * parent's copy of the agent: the exec must not be taken for the parent's.
 *
 *   vfork_exec PROGRAM
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: vfork_exec PROGRAM\n");
        return 2;
    }
    char *buffer = malloc(1 << 20);
    pid_t child = vfork();
    if (child == 0) {
        char *args[] = { argv[1], NULL };
        execv(argv[1], args);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    unsigned long sum = 0;
    for (int i = 0; i < (1 << 20); i += 4096) {
        buffer[i] = (char)(i >> 12);
        sum += (unsigned char)buffer[i];
    }
    printf("child status %d sum %lu\n", WEXITSTATUS(status), sum);
    return 0;
}
