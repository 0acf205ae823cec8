/*
 * churn: heap, mmap and stack traffic with a deterministic result, for integrity tests. Builds a
 * linked structure across malloc'd blocks and a large mmap'd array, shuffles it, and prints a
 * checksum that a traced and a native run must agree on. Optional exit status and signal.
 *
 *   churn ROUNDS [exit STATUS | signal N | sleep SECONDS]
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct node { struct node *next; uint64_t value; char pad[240]; };

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_random(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static uint64_t recurse(int depth, uint64_t seed)
{
    volatile char frame[512];
    memset((char *)frame, (int)(seed & 0xff), sizeof frame);
    if (depth == 0)
        return frame[seed % sizeof frame];
    return frame[depth] + recurse(depth - 1, seed * 31 + depth);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    size_t count = 4096;
    struct node **nodes = malloc(count * sizeof *nodes);
    for (size_t i = 0; i < count; i++) {
        nodes[i] = malloc(sizeof(struct node));
        nodes[i]->value = i;
    }
    size_t big = 4 << 20;
    uint64_t *array = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t sum = 0;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < count; i++) {
            size_t j = next_random() % count;
            struct node *t = nodes[i]; nodes[i] = nodes[j]; nodes[j] = t;
        }
        for (size_t i = 0; i + 1 < count; i++)
            nodes[i]->next = nodes[i + 1];
        nodes[count - 1]->next = NULL;
        for (struct node *n = nodes[0]; n; n = n->next)
            sum = sum * 1099511628211ULL + n->value;
        for (size_t i = 0; i < big / sizeof *array; i += 509)
            array[i] += sum ^ i;
        char *tmp = malloc(100000 + r * 1000);
        memset(tmp, r, 100000 + r * 1000);
        sum += tmp[r * 7] + recurse(20, sum);
        free(tmp);
    }
    for (size_t i = 0; i < big / sizeof *array; i += 509)
        sum += array[i];
    printf("churn rounds=%d checksum=%llu\n", rounds, (unsigned long long)sum);
    fflush(stdout);
    if (argc > 3 && strcmp(argv[2], "exit") == 0)
        return atoi(argv[3]);
    if (argc > 3 && strcmp(argv[2], "signal") == 0)
        raise(atoi(argv[3]));
    if (argc > 3 && strcmp(argv[2], "sleep") == 0) {
        /* keep referencing memory while sleeping in steps, so tracing stays busy */
        for (int s = 0; s < atoi(argv[3]) * 10; s++) {
            usleep(100000);
            for (size_t i = 0; i < big / sizeof *array; i += 512)
                array[i] += s;
        }
        uint64_t after = 0;
        for (size_t i = 0; i < big / sizeof *array; i += 512)
            after += array[i];
        printf("after-sleep=%llu\n", (unsigned long long)after);
    }
    return 0;
}
