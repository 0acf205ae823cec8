package io.faultline.tracer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;

import com.sun.jna.Native;
import io.faultline.format.InputProblem;

/**
 * Checks made before a target starts, each failing with one line that names the problem and
 * the fix: the program exists, will load the agent (dynamically linked, not setuid to another
 * user), and this process may create a userfaultfd that handles kernel-mode faults.
 */
public final class Preflight
{
    private static final int ENOSYS = 38;
    private static final int EPERM = 1;
    private static final int EACCES = 13;
    private static final int PT_INTERP = 3;

    private Preflight()
    {
    }

    /** Resolves {@code program} as execvp(3) would: a path if it holds '/', else the first match on PATH. */
    public static Path resolveProgram(final String program)
    {
        if (program.isEmpty())
        {
            throw new RecordException("the program name is empty");
        }
        if (program.contains("/"))
        {
            final Path path = Path.of(program);
            if (!Files.exists(path))
            {
                throw new RecordException("program " + program + " does not exist", InputProblem.UNREADABLE);
            }
            if (Files.isDirectory(path) || !Files.isExecutable(path))
            {
                throw new RecordException("program " + program + " is not an executable file; check its path and chmod +x",
                    InputProblem.UNREADABLE);
            }
            return path;
        }
        final String pathVariable = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (final String dir : pathVariable.split(":"))
        {
            final Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        throw new RecordException("program " + program + " was not found on PATH; give its path or install it",
            InputProblem.UNREADABLE);
    }

    /**
     * Fails for programs the dynamic loader will not preload the agent into: statically linked
     * executables (no PT_INTERP) and setuid or setgid executables owned by someone else (secure
     * execution mode ignores LD_PRELOAD). Scripts pass: their interpreter loads the agent.
     */
    public static void checkLoadsAgent(final Path program)
    {
        final PosixFileAttributes attributes;
        try
        {
            attributes = Files.readAttributes(program, PosixFileAttributes.class);
        }
        catch (final IOException ex)
        {
            throw new RecordException("cannot read program " + program + ": " + InputProblem.reason(ex),
                InputProblem.UNREADABLE);
        }
        final int mode = Integer.parseInt(modeBits(program), 8);
        final boolean setuid = (mode & 04000) != 0;
        final boolean setgid = (mode & 02000) != 0;
        final int euid = Libc.INSTANCE.geteuid();
        final int egid = Libc.INSTANCE.getegid();
        if ((setuid && ownerUid(program) != euid) || (setgid && ownerGid(program) != egid))
        {
            throw new RecordException("program " + program + " is " + (setuid ? "setuid" : "setgid")
                + ", so the dynamic loader ignores LD_PRELOAD and the agent would never load; trace a copy without "
                + "the setuid/setgid bit (cp it, chmod u-s,g-s)");
        }
        if (!attributes.isRegularFile())
        {
            throw new RecordException("program " + program + " is not a regular file");
        }
        try (FileChannel channel = FileChannel.open(program, StandardOpenOption.READ))
        {
            final ByteBuffer ident = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(ident, 0);
            ident.flip();
            if (ident.limit() < 64 || ident.getInt(0) != 0x464c457f)
            {
                return; // not ELF: a script, whose interpreter is checked when it runs
            }
            if (ident.get(4) != 2)
            {
                throw new RecordException("program " + program + " is a 32-bit executable; faultline traces x86-64 programs");
            }
            final long phoff = ident.getLong(32);
            final int phentsize = Short.toUnsignedInt(ident.getShort(54));
            final int phnum = Short.toUnsignedInt(ident.getShort(56));
            final ByteBuffer headers = ByteBuffer.allocate(phentsize * phnum).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(headers, phoff);
            for (int i = 0; i < phnum; i++)
            {
                if (headers.getInt(i * phentsize) == PT_INTERP)
                {
                    return;
                }
            }
            throw new RecordException("program " + program + " is statically linked, so LD_PRELOAD cannot load the "
                + "agent into it; rebuild it dynamically linked (without -static)");
        }
        catch (final IOException ex)
        {
            throw new RecordException("cannot read program " + program + ": " + InputProblem.reason(ex),
                InputProblem.UNREADABLE);
        }
    }

    /** Set, the recorder acts as if the userfaultfd engine were unavailable; set to "all", any userfaultfd: for tests of the fallbacks. */
    public static final String NO_UFFD_FOR_TESTS = "FAULTLINE_TEST_NO_UFFD";

    /**
     * Creates and closes a userfaultfd without UFFD_USER_MODE_ONLY, as the agent will: that needs
     * read-write access to /dev/userfaultfd, CAP_SYS_PTRACE, or vm.unprivileged_userfaultfd=1.
     */
    public static void checkUserfaultfd()
    {
        if (System.getenv(NO_UFFD_FOR_TESTS) != null)
        {
            throw new RecordException("userfaultfd taken away by " + NO_UFFD_FOR_TESTS + " (a switch for faultline's "
                + "own tests); unset it");
        }
        final int devFd = Libc.INSTANCE.open("/dev/userfaultfd", Libc.O_RDWR | Libc.O_CLOEXEC);
        if (devFd >= 0)
        {
            Libc.INSTANCE.close(devFd);
            return;
        }
        final long fd = Libc.INSTANCE.syscall(Libc.SYS_USERFAULTFD, Libc.O_CLOEXEC | Libc.O_NONBLOCK);
        if (fd >= 0)
        {
            Libc.INSTANCE.close((int)fd);
            return;
        }
        final int errno = Native.getLastError();
        if (errno == ENOSYS)
        {
            throw new RecordException("this kernel has no userfaultfd (CONFIG_USERFAULTFD is off); faultline needs a "
                + "kernel built with it");
        }
        if (errno == EPERM || errno == EACCES)
        {
            throw new RecordException("no permission to use userfaultfd: give this user read-write access to "
                + "/dev/userfaultfd (e.g. setfacl -m u:$USER:rw /dev/userfaultfd) or run "
                + "sysctl vm.unprivileged_userfaultfd=1", InputProblem.UNREADABLE);
        }
        throw new RecordException("cannot create a userfaultfd: errno " + errno);
    }

    /**
     * The sigbus engine's userfaultfd: {@code UFFD_USER_MODE_ONLY}, which the kernel grants an
     * ordinary user where {@code vm.unprivileged_userfaultfd=0} (fs/userfaultfd.c,
     * userfaultfd_syscall_allowed). The message says why not, not what to do instead: that
     * depends on the caller (EngineChoice).
     */
    public static void checkUserModeUserfaultfd()
    {
        if ("all".equals(System.getenv(NO_UFFD_FOR_TESTS)))
        {
            throw new RecordException("userfaultfd taken away by " + NO_UFFD_FOR_TESTS + " (a switch for faultline's "
                + "own tests); unset it");
        }
        final long fd = Libc.INSTANCE.syscall(Libc.SYS_USERFAULTFD, Libc.O_CLOEXEC | Libc.O_NONBLOCK | UFFD_USER_MODE_ONLY);
        if (fd >= 0)
        {
            Libc.INSTANCE.close((int)fd);
            return;
        }
        final int errno = Native.getLastError();
        if (errno == ENOSYS)
        {
            throw new RecordException("this kernel has no userfaultfd (CONFIG_USERFAULTFD is off)");
        }
        throw new RecordException("cannot create a user-mode userfaultfd (errno " + errno + ")");
    }

    /** userfaultfd(2)'s flag: only user-mode faults are handled (Linux 5.11). */
    private static final int UFFD_USER_MODE_ONLY = 1;

    private static String modeBits(final Path program)
    {
        try
        {
            final Object mode = Files.getAttribute(program, "unix:mode");
            return Integer.toOctalString((Integer)mode);
        }
        catch (final IOException | UnsupportedOperationException | IllegalArgumentException ex)
        {
            try
            {
                int bits = 0;
                for (final PosixFilePermission p : Files.getPosixFilePermissions(program))
                {
                    bits |= 1 << (8 - p.ordinal());
                }
                return Integer.toOctalString(bits);
            }
            catch (final IOException ex2)
            {
                return "0";
            }
        }
    }

    private static int ownerUid(final Path program)
    {
        return unixInt(program, "unix:uid");
    }

    private static int ownerGid(final Path program)
    {
        return unixInt(program, "unix:gid");
    }

    private static int unixInt(final Path program, final String attribute)
    {
        try
        {
            return (Integer)Files.getAttribute(program, attribute);
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }
}
