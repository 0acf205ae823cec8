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

#ifdef __cplusplus
}
#endif

#endif
