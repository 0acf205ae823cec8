/*
 * locale_threads: a program that sets a locale loaded from files (C.UTF-8: glibc malloc's its
 * data) from a thread of its own, as a JVM does (the data then lies in that thread's arena, on
 * no page the starting of a thread touches), then starts threads while the locale's pages have
 * been disabled by its walks over other pages (under --evms 16). A new thread reads the locale's LC_CTYPE data in glibc's
 * start_thread (__ctype_init) with every signal blocked: under `record --engine mprotect` a
 * fault there is fatal (the kernel forces SIGSEGV's default action), so the agent keeps those
 * pages enabled. A JVM died so at start.
 *
 *   locale_threads THREADS    prints the locale and how many threads ran
 */
#define _GNU_SOURCE
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096
#define WALK 32 /* pages walked before each thread start: more than --evms 16 */

static int ran;
static const char *name;

static void *set_locale(void *arg)
{
	(void)arg;
	name = setlocale(LC_ALL, "C.UTF-8");
	return NULL;
}

static void *thread(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 50;
	pthread_t setter;
	if (pthread_create(&setter, NULL, set_locale, NULL) != 0 || pthread_join(setter, NULL) != 0) {
		perror("pthread");
		return 1;
	}
	volatile char *walk = mmap(NULL, WALK * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (walk == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (int t = 0; t < threads; t++) {
		for (int p = 0; p < WALK; p++)
			walk[p * PAGE] += 1;
		pthread_t th;
		if (pthread_create(&th, NULL, thread, NULL) != 0 || pthread_join(th, NULL) != 0) {
			perror("pthread");
			return 1;
		}
	}
	printf("locale %s threads=%d\n", name ? name : "(none)", ran);
	return 0;
}
