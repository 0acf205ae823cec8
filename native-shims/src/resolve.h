/*
 * resolve.h: libc's own definition of a name the agent exports. The hooks (src/hooks/) wrap libc
 * calls under their own names, so the agent reaches the function they wrap as the dynamic
 * linker's next definition (dlsym RTLD_NEXT), resolved once into a pointer: by the hooks, and by
 * the few rooms below them that need libc's function itself rather than a system call (sys.c's
 * pthread_create, fault_signal.c's sigaction and pthread_sigmask). Resolve before any handler
 * thread runs where a handler may call it: dlsym takes the dynamic linker's lock.
 */
#ifndef FL_RESOLVE_H
#define FL_RESOLVE_H

#include <dlfcn.h>

#define FL_RESOLVE(var, name)                                       \
	do {                                                        \
		if (!(var))                                         \
			*(void **)&(var) = dlsym(RTLD_NEXT, name); \
	} while (0)

#endif
