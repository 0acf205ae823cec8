/*
 * faultline.h: the one call a traced program may make into the faultline agent.
 *
 * With `faultline record --scope api`, only ranges registered here are traced. Declare the
 * function weak so the program runs unchanged without the agent:
 *
 *     #include <faultline.h>
 *     ...
 *     if (faultline_trace_range) faultline_trace_range(buf, len);
 *
 * When the call returns 0, every page that overlaps [addr, addr + len) is disabled, populated
 * or not, so the next reference to each page faults and is recorded.
 */
#ifndef FAULTLINE_H
#define FAULTLINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Trace the pages overlapping [addr, addr + len). The range must lie in private anonymous
 * writable memory (malloc, mmap(MAP_PRIVATE | MAP_ANONYMOUS), stacks).
 * Returns 0 on success, -1 with errno set otherwise: EINVAL (bad range or not anonymous
 * private memory), ENOSYS (the agent is loaded but not tracing), or the errno of the failed
 * userfaultfd call.
 */
int faultline_trace_range(void *addr, size_t len) __attribute__((weak));

/*
 * For a process that loads libfaultline.so late (dlopen, Java's System.load), without
 * LD_PRELOAD: the Java API (io.faultline.api) calls these. faultline_attach starts tracing
 * into the shared memory a recorder created at shm_path (the recorder runs in another process,
 * whose death the agent notices); only ranges registered with faultline_trace_range are
 * traced, as with --scope api, whatever the control block says. faultline_detach stops it:
 * every page comes home, and when it returns the agent's handler thread has exited and wrote
 * its last record. Sessions may follow each other; one runs at a time.
 * Both return 0, or -1 with errno: attach EBUSY (a session runs), EEXIST (the process runs
 * under faultline record already), EINVAL (not a faultline shared memory), EPERM (no
 * userfaultfd); detach ENOENT (no session), EPIPE (the recorder died first; the pages came
 * home then), ETIMEDOUT, or the errno that stopped the agent.
 */
int faultline_attach(const char *shm_path) __attribute__((weak));
int faultline_detach(void) __attribute__((weak));

#ifdef __cplusplus
}
#endif

#endif
