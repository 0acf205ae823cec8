package io.faultline.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.faultline.tracer.AgentLibrary;

/**
 * libfaultline.so loaded into this JVM, found as the launcher finds it (FAULTLINE_AGENT, the
 * {@code faultline.agent} system property, the copy in the jar). Loaded RTLD_LOCAL: its
 * LD_PRELOAD wrappers (malloc, mmap, pthread_create, fork) stay out of the JVM's symbol
 * lookups, so only what {@code faultline_trace_range} registers is traced. The calls are
 * those of native-shims/include/faultline.h.
 */
final class Agent
{
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EIO = 5;
    static final int EEXIST = 17;
    static final int EINVAL = 22;
    static final int EBUSY = 16;
    static final int EPIPE = 32;
    static final int ENOSYS = 38;
    static final int ETIMEDOUT = 110;

    private static final int RTLD_NOW = 2; // and not RTLD_GLOBAL

    /** The exported calls; each returns 0, or -1 with errno. */
    interface Calls extends Library
    {
        int faultline_attach(String shmPath);

        int faultline_detach();

        int faultline_trace_range(long address, long length);
    }

    private static Calls calls;
    private static Path path;

    private Agent()
    {
    }

    static synchronized Calls calls()
    {
        if (calls == null)
        {
            try
            {
                path = AgentLibrary.locate();
            }
            catch (final IOException | RuntimeException ex)
            {
                // a FAULTLINE_AGENT or -Dfaultline.agent naming nothing, a jar without the agent
                throw new FaultlineException("cannot find the faultline agent: " + ex.getMessage());
            }
            try
            {
                calls = Native.load(path.toString(), Calls.class, Map.of(Library.OPTION_OPEN_FLAGS, RTLD_NOW));
            }
            catch (final UnsatisfiedLinkError ex)
            {
                throw new FaultlineException("cannot load the faultline agent " + path + ": " + ex.getMessage()
                    + "; point -Dfaultline.agent at a libfaultline.so built for this machine");
            }
        }
        return calls;
    }

    /** errno of this thread's last call into the agent */
    static int errno()
    {
        return Native.getLastError();
    }
}
