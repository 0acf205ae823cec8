/*
 * entry.c: the agent's entry points, the top room: the constructor and destructor the dynamic
 * linker runs, and the public calls of faultline.h (attach and detach for a library loaded
 * late, the Java API's way in; faultline_trace_range). The interposed libc calls are entries
 * too (interpose.c, touch.c, signals.c, beside this file: the hooks layer). Without FAULTLINE_SHM and without an attach the
 * library is inert.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "faultline_shm.h"
#include "agent.h"
#include "interpose.h"
#include "request.h"
#include "state.h"
#include "sys.h"
#include "touch.h"

/* the next definitions of what the agent interposes, resolved before any handler thread runs */
static void resolve_interposed(void)
{
	fl_interpose_init();
	fl_touch_resolve();
}

__attribute__((constructor)) static void fl_init(void)
{
	const char *path = getenv(FL_ENV_SHM);
	if (!path || !*path)
		return;
	fl_agent_hold_library(); /* its exec'd images preload it, whether or not this one traces */
	resolve_interposed();
	fl_agent_start(path, fl_touch_start);
}

/*
 * Normal exit (exit(3), return from main): the pages still in the EVMS emit their eviction
 * records in kVMTrace's order (evms.c). Runs after the program's own atexit handlers and
 * destructors (ours was constructed before them); _exit and fatal signals skip it, and their
 * traces end without these records.
 */
__attribute__((destructor)) static void fl_fini(void)
{
	if (fl_tracing() && !fl_on_handler_thread())
		fl_req_call(FL_REQ_EVMS_FLUSH, 0, 0, 0, 0);
}

FL_EXPORT int faultline_attach(const char *shm_path)
{
	resolve_interposed();
	int r = fl_agent_attach(shm_path);
	if (r == 0)
		return 0;
	errno = -r;
	return -1;
}

FL_EXPORT int faultline_detach(void)
{
	int r = fl_agent_detach();
	if (r == 0)
		return 0;
	errno = -r;
	return -1;
}

FL_EXPORT int faultline_trace_range(void *addr, size_t len)
{
	if (!fl_tracing()) {
		errno = ENOSYS;
		return -1;
	}
	int r = fl_req_call(FL_REQ_TRACE_RANGE, (uintptr_t)addr, len, 0, 0);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}
