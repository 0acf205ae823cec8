/*
 * big_read: one read(2) of a whole file into a heap buffer whose pages a small EVMS has parked,
 * then a checksum of the buffer. The system-call gate holds every page of the buffer for the
 * call; past what it holds, the kernel would meet pages disabled again and the read would
 * return short.
 *
 *   big_read FILE BYTES
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    size_t n = (size_t)atol(argv[2]);
    unsigned char *b = malloc(n);
    if (!b)
        return 3;
    memset(b, 1, n); /* populated, so that the EVMS parks most of it before the read */
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror("open");
        return 4;
    }
    ssize_t r = read(fd, b, n);
    printf("read %zd of %zu%s%s\n", r, n, r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
    unsigned long s = 0;
    for (size_t i = 0; i < n; i += 512)
        s = s * 31 + b[i];
    printf("checksum %lu\n", s);
    return 0;
}
