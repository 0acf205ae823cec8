/*
 * api_script: a workload with a known reference sequence, for exactness tests.
 *
 *   api_script PAGES[@LIB] POPULATE SCRIPT [DATAFILE]
 *
 * Maps PAGES private anonymous pages (with @LIB right after the last mapping whose path holds
 * LIB: anonymous memory next to a library's image, which faultline must not take for the
 * library's .bss), writes a pattern into the first POPULATE of them, registers
 * the whole range with faultline_trace_range (when the agent is loaded), then runs SCRIPT: words
 * separated by commas, each `rK` (read one byte of page K), `wK` (write one byte of page K) or
 * `sK` (read(2) 100 bytes of DATAFILE into page K: a kernel-mode write) or `t0` (pass the whole
 * range to faultline_trace_range again: its enabled pages are disabled, its parked pages must
 * keep their contents) or `pK` (print "paused" and the base address, then sleep K seconds)
 * or `uK` (munmap page K) or `dK` (madvise page K MADV_DONTNEED: its contents go, a later
 * reference finds a zero page).
 * Prints the range's base address and a checksum of the whole range, so a traced and a native
 * run can be compared.
 * Every access goes through a volatile pointer: the compiler may neither drop nor reorder them.
 */
#include <faultline.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

/* the end of the last line of /proc/self/maps whose path holds lib */
static void *after_last_mapping_of(const char *lib)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    unsigned long start, end, found = 0;
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, lib) && sscanf(line, "%lx-%lx", &start, &end) == 2)
            found = end;
    if (maps)
        fclose(maps);
    if (!found)
        fprintf(stderr, "no mapping of %s\n", lib);
    return (void *)found;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: api_script PAGES[@LIB] POPULATE SCRIPT [DATAFILE]\n");
        return 2;
    }
    long pages = atol(argv[1]);
    long populate = atol(argv[2]);
    const char *script = argv[3];
    const char *datafile = argc > 4 ? argv[4] : "/dev/null";
    const char *lib = strchr(argv[1], '@');
    void *at = lib ? after_last_mapping_of(lib + 1) : NULL;
    if (lib && !at)
        return 1;
    volatile unsigned char *base = mmap(at, pages * PAGE, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (long p = 0; p < populate; p++)
        for (long i = 0; i < PAGE; i += 64)
            base[p * PAGE + i] = (unsigned char)(p * 7 + i);
    if (faultline_trace_range && faultline_trace_range((void *)base, pages * PAGE) != 0) {
        perror("faultline_trace_range");
        return 1;
    }
    unsigned long sum = 0;
    for (const char *s = script; *s; ) {
        char op = *s++;
        long page = strtol(s, (char **)&s, 10);
        if (*s == ',')
            s++;
        volatile unsigned char *at = base + page * PAGE + (page * 8) % PAGE;
        if (op == 'r') {
            sum += *at;
        } else if (op == 'w') {
            *at = (unsigned char)(page * 3 + 1); /* a pure store: a read-modify-write would trap as a read */
        } else if (op == 't') {
            if (faultline_trace_range && faultline_trace_range((void *)base, pages * PAGE) != 0) {
                perror("faultline_trace_range");
                return 1;
            }
        } else if (op == 'u') {
            if (munmap((void *)(base + page * PAGE), PAGE) != 0) {
                perror("munmap");
                return 1;
            }
        } else if (op == 'd') {
            if (madvise((void *)(base + page * PAGE), PAGE, MADV_DONTNEED) != 0) {
                perror("madvise");
                return 1;
            }
        } else if (op == 'p') {
            /* pause: say so, then sleep PAGE seconds (tests kill the recorder meanwhile) */
            printf("paused base=%p\n", (void *)base);
            fflush(stdout);
            sleep((unsigned)page);
        } else if (op == 's') {
            int fd = open(datafile, O_RDONLY);
            if (fd < 0 || read(fd, (void *)(base + page * PAGE + 100), 100) < 0) {
                perror("read");
                return 1;
            }
            close(fd);
        } else {
            fprintf(stderr, "bad op %c\n", op);
            return 2;
        }
    }
    /* Not part of the script: the checksum reads every page, after the script's records. */
    unsigned long check = 0;
    if (argc > 5 && strcmp(argv[5], "checksum") == 0)
        for (long i = 0; i < pages * PAGE; i++)
            check = check * 31 + base[i];
    printf("base=%p sum=%lu checksum=%lu\n", (void *)base, sum, check);
    return 0;
}
