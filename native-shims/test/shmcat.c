/*
 * shmcat: a tiny C stand-in for the Java recorder, to test the agent alone. Creates the shared
 * memory file (faultline_shm.h), runs the target with FAULTLINE_SHM and LD_PRELOAD, drains
 * every slot's ring while it runs and after it exits, and prints
 *
 *   <seq> <pid> <tid> r|w 0x<address>[ first]       one line per record
 *   event <name> pid=.. tid=.. seq=.. a=.. b=.. c=.. d=.. [text]
 *   slot <i> state=.. pid=.. records=.. ...          counters at the end
 *
 * usage: shmcat [-e evms_pages] [-s all|api] [-r ring_bytes] [-c chunk_records] [-n slots]
 *               [-o out] [-l libfaultline.so] [-q] [-t stop_after_ms] [-d drain_delay_us]
 *               [-F] [-E uffd|sigbus|mprotect] -- program [args...]
 *   -q   count records, print only events and counters
 *   -t   set the control block's stop flag after this many ms
 *   -d   sleep this long between drains (a slow recorder, to fill the ring)
 *   -F   set FL_FLAG_FOLLOW_FORKS
 *   -E   the engine (default uffd)
 * Exit status: the target's (128 + signal if killed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "faultline_shm.h"

static uint8_t *shm;
static FILE *out;
static int quiet;
static uint64_t total_records;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#define U32(p, o) (*(uint32_t *)((uint8_t *)(p) + (o)))
#define U64(p, o) (*(uint64_t *)((uint8_t *)(p) + (o)))

static const char *event_name(uint32_t t)
{
	static const char *names[] = { "?", "process_start", "process_exit", "thread_start", "thread_exit",
				       "thread_name", "trace_range", "mmap", "munmap", "mremap", "madvise",
				       "brk", "fork", "exec", "trace_stop", "untrace_range" };
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

static void on_message(int32_t type, const uint8_t *m, uint32_t len)
{
	if (type == FL_MSG_CHUNK) {
		uint32_t pid = U32(m, FL_CHUNK_PID), tid = U32(m, FL_CHUNK_TID), count = U32(m, FL_CHUNK_COUNT);
		if (FL_CHUNK_HEADER_SIZE + (uint64_t)count * FL_RECORD_SIZE != len) {
			fprintf(out, "BAD CHUNK len=%u count=%u\n", len, count);
			return;
		}
		total_records += count;
		if (quiet)
			return;
		for (uint32_t i = 0; i < count; i++) {
			const uint8_t *r = m + FL_CHUNK_HEADER_SIZE + (size_t)i * FL_RECORD_SIZE;
			uint32_t f = U32(r, FL_RECORD_FLAGS);
			fprintf(out, "%llu %u %u %c 0x%llx%s\n", (unsigned long long)U64(r, FL_RECORD_SEQ), pid, tid,
				(f & FL_REC_WRITE) ? 'w' : 'r', (unsigned long long)U64(r, FL_RECORD_ADDRESS),
				(f & FL_REC_FIRST_TOUCH) ? " first" : "");
		}
	} else if (type == FL_MSG_EVENT) {
		uint32_t tl = U32(m, FL_EVENT_TEXT_LENGTH);
		fprintf(out, "event %s pid=%u tid=%u seq=%llu a=0x%llx b=0x%llx c=0x%llx d=0x%llx %.*s\n",
			event_name(U32(m, FL_EVENT_TYPE)), U32(m, FL_EVENT_PID), U32(m, FL_EVENT_TID),
			(unsigned long long)U64(m, FL_EVENT_SEQ), (unsigned long long)U64(m, FL_EVENT_A),
			(unsigned long long)U64(m, FL_EVENT_B), (unsigned long long)U64(m, FL_EVENT_C),
			(unsigned long long)U64(m, FL_EVENT_D), (int)tl, (const char *)m + FL_EVENT_HEADER_SIZE);
	} else {
		fprintf(out, "UNKNOWN MESSAGE type=%d len=%u\n", type, len);
	}
}

/* Agrona OneToOneRingBuffer.read: consume, zero what was consumed, release the head */
static int drain_ring(uint8_t *buf, uint32_t cap)
{
	int64_t *head = (int64_t *)(buf + cap + FL_RING_HEAD_POSITION_OFFSET);
	int64_t h = __atomic_load_n(head, __ATOMIC_RELAXED);
	int n = 0;
	for (;;) {
		uint32_t idx = (uint32_t)h & (cap - 1);
		int32_t len = __atomic_load_n((int32_t *)(buf + idx), __ATOMIC_ACQUIRE);
		if (len <= 0)
			break;
		int32_t type = *(int32_t *)(buf + idx + 4);
		uint32_t aligned = ((uint32_t)len + 7u) & ~7u;
		if (type != FL_RING_PADDING_MSG_TYPE)
			on_message(type, buf + idx + FL_RING_HEADER_LENGTH, (uint32_t)len - FL_RING_HEADER_LENGTH);
		memset(buf + idx, 0, aligned);
		h += aligned;
		__atomic_store_n(head, h, __ATOMIC_RELEASE);
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	uint32_t evms = 512, scope = FL_SCOPE_ALL, ring_cap = 1u << 20, chunk = 64, slots = 16, flags = 0;
	uint32_t engine = FL_ENGINE_UFFD;
	const char *outpath = NULL, *lib = NULL;
	long stop_after_ms = -1, drain_delay_us = 0;
	int opt;
	while ((opt = getopt(argc, argv, "+e:s:r:c:n:o:l:qt:d:FE:")) != -1) {
		switch (opt) {
		case 'e': evms = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': scope = strcmp(optarg, "api") == 0 ? FL_SCOPE_API : FL_SCOPE_ALL; break;
		case 'r': ring_cap = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'c': chunk = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'n': slots = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'o': outpath = optarg; break;
		case 'l': lib = optarg; break;
		case 'q': quiet = 1; break;
		case 't': stop_after_ms = strtol(optarg, NULL, 0); break;
		case 'd': drain_delay_us = strtol(optarg, NULL, 0); break;
		case 'F': flags |= FL_FLAG_FOLLOW_FORKS; break;
		case 'E':
			engine = strcmp(optarg, "sigbus") == 0 ? FL_ENGINE_SIGBUS
				 : strcmp(optarg, "mprotect") == 0 ? FL_ENGINE_MPROTECT : FL_ENGINE_UFFD;
			break;
		default:
			fprintf(stderr, "usage: shmcat [-e evms] [-s all|api] [-r ring] [-c chunk] [-n slots] [-o out] "
					"[-l lib] [-q] [-t stop_ms] [-d delay_us] [-F] -- program [args]\n");
			return 2;
		}
	}
	if (optind >= argc || (ring_cap & (ring_cap - 1))) {
		fprintf(stderr, "shmcat: need a program, and a power-of-two ring size: ring=%u\n", ring_cap);
		return 2;
	}
	out = outpath ? fopen(outpath, "w") : stdout;
	if (!out) {
		perror(outpath);
		return 2;
	}
	char libbuf[PATH_MAX];
	if (!lib) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = 0;
		snprintf(libbuf, sizeof(libbuf), "%s/libfaultline.so", dirname(self));
		lib = libbuf;
	}

	uint64_t page = 4096;
	uint64_t ring_offset = (FL_SLOTS_OFFSET + (uint64_t)slots * FL_SLOT_SIZE + page - 1) & ~(page - 1);
	uint64_t stride = ((uint64_t)ring_cap + FL_RING_TRAILER_LENGTH + page - 1) & ~(page - 1);
	uint64_t ledger_offset = ring_offset + stride * slots;
	uint64_t size = ledger_offset + (uint64_t)FL_LEDGER_SIZE * slots;
	char path[64];
	snprintf(path, sizeof(path), "/dev/shm/shmcat.%d", getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror(path);
		return 2;
	}
	shm = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (shm == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	U64(shm, FL_CTL_MAGIC) = FL_SHM_MAGIC;
	U32(shm, FL_CTL_VERSION) = FL_SHM_VERSION;
	U32(shm, FL_CTL_PAGE_SIZE) = (uint32_t)page;
	U32(shm, FL_CTL_SLOT_COUNT) = slots;
	U32(shm, FL_CTL_RING_CAPACITY) = ring_cap;
	U64(shm, FL_CTL_RING_OFFSET) = ring_offset;
	U64(shm, FL_CTL_RING_STRIDE) = stride;
	U32(shm, FL_CTL_EVMS_PAGES) = evms;
	U32(shm, FL_CTL_SCOPE) = scope;
	U32(shm, FL_CTL_ENGINE) = engine;
	U32(shm, FL_CTL_POLICY) = FL_POLICY_FIFO;
	U32(shm, FL_CTL_FLAGS) = flags;
	U32(shm, FL_CTL_RECORDER_PID) = (uint32_t)getpid();
	U32(shm, FL_CTL_CHUNK_RECORDS) = chunk;
	U64(shm, FL_CTL_LEDGER_OFFSET) = ledger_offset;
	uint64_t start = now_ns();
	U64(shm, FL_CTL_START_MONO_NS) = start;

	pid_t child = fork();
	if (child < 0) {
		perror("fork");
		return 2;
	}
	if (child == 0) {
		setenv(FL_ENV_SHM, path, 1);
		setenv("LD_PRELOAD", lib, 1);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	int status = 0, exited = 0, stopped = 0;
	while (!exited) {
		int got = 0;
		for (uint32_t s = 0; s < slots; s++)
			got += drain_ring(shm + ring_offset + s * stride, ring_cap);
		if (!stopped && stop_after_ms >= 0 && now_ns() - start >= (uint64_t)stop_after_ms * 1000000ULL) {
			__atomic_store_n(&U32(shm, FL_CTL_STOP), 1, __ATOMIC_RELEASE);
			stopped = 1;
		}
		pid_t w = waitpid(child, &status, WNOHANG);
		if (w == child)
			exited = 1;
		else if (drain_delay_us > 0)
			usleep((useconds_t)drain_delay_us);
		else if (!got)
			usleep(200);
	}
	/* everything the agent published before the process died is in the rings */
	for (uint32_t s = 0; s < slots; s++)
		drain_ring(shm + ring_offset + s * stride, ring_cap);
	fprintf(out, "records %llu clock %llu\n", (unsigned long long)total_records,
		(unsigned long long)U64(shm, FL_CTL_CLOCK));
	for (uint32_t s = 0; s < slots; s++) {
		uint8_t *d = shm + FL_SLOTS_OFFSET + (size_t)s * FL_SLOT_SIZE;
		if (U32(d, FL_SLOT_STATE) == FL_SLOT_FREE)
			continue;
		fprintf(out,
			"slot %u state=%u pid=%u ppid=%u stop_reason=%u records=%llu faults=%llu chunks=%llu evictions=%llu "
			"ring_waits=%llu wait_ns=%llu races=%llu error=%u registered_pages=%llu\n",
			s, U32(d, FL_SLOT_STATE), U32(d, FL_SLOT_PID), U32(d, FL_SLOT_PPID), U32(d, FL_SLOT_STOP_REASON),
			(unsigned long long)U64(d, FL_SLOT_RECORDS), (unsigned long long)U64(d, FL_SLOT_FAULTS),
			(unsigned long long)U64(d, FL_SLOT_CHUNKS), (unsigned long long)U64(d, FL_SLOT_EVICTIONS),
			(unsigned long long)U64(d, FL_SLOT_RING_WAITS), (unsigned long long)U64(d, FL_SLOT_WAIT_NS),
			(unsigned long long)U64(d, FL_SLOT_RACES), U32(d, FL_SLOT_ERROR),
			(unsigned long long)U64(d, FL_SLOT_REGISTERED_PAGES));
	}
	fflush(out);
	unlink(path);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
