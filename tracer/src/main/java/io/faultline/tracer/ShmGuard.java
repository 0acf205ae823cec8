package io.faultline.tracer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * A process that removes the shared-memory file when the recorder dies, however it dies: a
 * {@code kill -9} runs no shutdown hook and no finally block, and left {@code
 * /dev/shm/faultline-PID-*} behind until the next recording swept it (a kill before the
 * program started; once it runs, the agent removes the file when it sees the recorder die).
 * <p>
 * The guard is a shell loop that checks once a second whether the recorder still lives. It is
 * started before the file is created, so no kill leaves a window in which the file exists and
 * nobody will remove it. The file cannot be removed at once after the agents map it, as POSIX
 * shared memory usually is: every image a traced process execs opens it again by its path
 * (FAULTLINE_SHM). So once the recorder is dead the guard waits until no process maps the
 * file (/proc/PID/maps), then removes it. It runs in the background of a shell that exits at
 * once, so that it is no child of the recorder (the program's processes are its only
 * descendants, as tests and pstree expect), and it ignores the terminal's SIGINT, SIGQUIT and
 * SIGHUP and a SIGTERM to the process group, which the recorder survives or turns into a
 * clean end. A recorder that ends normally removes the file and kills its guard.
 */
final class ShmGuard implements AutoCloseable
{
    /** $1 the file, $2 the recorder's pid; prints the guard's pid. */
    private static final String SCRIPT = "(trap '' INT QUIT HUP TERM;"
        + " while kill -0 \"$2\" 2>/dev/null; do sleep 1; done;"
        + " while [ -e \"$1\" ] && grep -qsF -- \"$1\" /proc/[0-9]*/maps; do sleep 1; done;"
        + " rm -f -- \"$1\") </dev/null >/dev/null 2>&1 & echo $!";

    private final ProcessHandle guard;

    private ShmGuard(final ProcessHandle guard)
    {
        this.guard = guard;
    }

    /**
     * Starts the guard of {@code file}, which need not exist yet.
     *
     * @return the guard, or null if none could be started (the next recording's sweep of files
     *         whose recorder is dead then remains)
     */
    static ShmGuard start(final Path file)
    {
        try
        {
            final Process shell = new ProcessBuilder(List.of("/bin/sh", "-c", SCRIPT, "faultline-shm-guard",
                file.toString(), Long.toString(ProcessHandle.current().pid())))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
            shell.getOutputStream().close();
            final String pid;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(shell.getInputStream(),
                StandardCharsets.US_ASCII)))
            {
                pid = out.readLine();
            }
            shell.waitFor();
            return pid == null ? null : ProcessHandle.of(Long.parseLong(pid.trim())).map(ShmGuard::new).orElse(null);
        }
        catch (final IOException | NumberFormatException ex)
        {
            return null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Ends the guard, once the recorder has removed the file itself. */
    @Override
    public void close()
    {
        guard.destroyForcibly(); // SIGKILL: it ignores SIGTERM
    }
}
