/*
 * faultline-demo: the bundled workload. A blocked matrix multiply over a few MiB of heap, then
 * a hash-table churn; deterministic; prints one checksum line. Runs about a second natively.
 *
 *   faultline-demo [n] [rounds]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 32

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void matmul(size_t n, const double *a, const double *b, double *c)
{
	for (size_t ii = 0; ii < n; ii += BLOCK)
		for (size_t kk = 0; kk < n; kk += BLOCK)
			for (size_t jj = 0; jj < n; jj += BLOCK)
				for (size_t i = ii; i < ii + BLOCK && i < n; i++)
					for (size_t k = kk; k < kk + BLOCK && k < n; k++) {
						double aik = a[i * n + k];
						for (size_t j = jj; j < jj + BLOCK && j < n; j++)
							c[i * n + j] += aik * b[k * n + j];
					}
}

struct entry {
	uint64_t key, value;
	struct entry *next;
};

static uint64_t churn(size_t buckets, size_t ops)
{
	struct entry **table = calloc(buckets, sizeof(*table));
	uint64_t sum = 0;
	for (size_t op = 0; op < ops; op++) {
		uint64_t key = next() % (buckets * 2);
		struct entry **slot = &table[key % buckets];
		while (*slot && (*slot)->key != key)
			slot = &(*slot)->next;
		if (*slot) {
			sum += (*slot)->value;
			struct entry *dead = *slot;
			*slot = dead->next;
			free(dead);
		} else {
			struct entry *e = malloc(sizeof(*e));
			e->key = key;
			e->value = key * 2654435761u;
			e->next = NULL;
			*slot = e;
		}
	}
	for (size_t i = 0; i < buckets; i++)
		while (table[i]) {
			struct entry *e = table[i];
			table[i] = e->next;
			sum ^= e->value;
			free(e);
		}
	free(table);
	return sum;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
	size_t rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 20;
	double *a = malloc(n * n * sizeof(double)), *b = malloc(n * n * sizeof(double)), *c = malloc(n * n * sizeof(double));
	if (!a || !b || !c)
		return 1;
	for (size_t i = 0; i < n * n; i++) {
		a[i] = (double)(next() % 1000) / 100.0;
		b[i] = (double)(next() % 1000) / 100.0;
	}
	memset(c, 0, n * n * sizeof(double));
	for (size_t r = 0; r < rounds; r++)
		matmul(n, a, b, c);
	double sum = 0;
	for (size_t i = 0; i < n * n; i++)
		sum += c[i] * (double)(i % 7 + 1);
	uint64_t h = churn(1 << 14, 400000);
	printf("faultline-demo n=%zu rounds=%zu checksum=%.6e churn=%016llx\n", n, rounds, sum, (unsigned long long)h);
	free(a);
	free(b);
	free(c);
	return 0;
}
