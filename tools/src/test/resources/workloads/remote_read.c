/*
 * remote_read PID ADDR LEN: reads [ADDR, ADDR + LEN) of process PID through the kernel, as a
 * debugger (/proc/PID/mem) and a sampling profiler such as py-spy (process_vm_readv) do, and
 * prints for each "ok" and a checksum of the bytes, or the error's name: "mem ok 1a2b vm EFAULT".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *name(int err)
{
	switch (err) {
	case EIO: return "EIO";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	default: return strerror(err);
	}
}

static void say(const char *what, ssize_t got, size_t len, const unsigned char *buf, int err)
{
	if (got != (ssize_t)len) {
		printf(" %s %s", what, got < 0 ? name(err) : "short");
		return;
	}
	unsigned long sum = 0;
	for (size_t i = 0; i < len; i++)
		sum = sum * 31 + buf[i];
	printf(" %s ok %lx", what, sum);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	pid_t pid = atoi(argv[1]);
	unsigned long addr = strtoul(argv[2], NULL, 16);
	size_t len = strtoul(argv[3], NULL, 0);
	unsigned char *a = malloc(len), *b = malloc(len);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, O_RDONLY);
	ssize_t got = fd < 0 ? -1 : pread(fd, a, len, (off_t)addr);
	say("mem", got, len, a, errno);
	struct iovec local = { b, len }, remote = { (void *)addr, len };
	got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	say("vm", got, len, b, errno);
	printf("\n");
	return 0;
}
