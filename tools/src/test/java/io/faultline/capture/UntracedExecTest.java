package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program a traced process starts that the agent cannot follow (issue 40): record says so in one
 * line as it happens, and info lists it with its pid and path. Before, a static program run by a
 * traced shell went untraced in silence, and info listed its pid as the shell. Each way the agent
 * is kept out: a statically linked program, a 32-bit one, one set-user-ID to another user (run as
 * nobody), one whose environment no longer names the agent; started by a shell's fork and exec,
 * by dash's vfork, by python's subprocess (vfork and an exec libc's wrappers do not see, found
 * among the children); and an exec that fails after it was said.
 */
class UntracedExecTest
{
    private static final Pattern STATIC_PID = Pattern.compile("static (\\d+)");
    private static final String NOTICE = "faultline record: pid %d runs %s untraced: %s";
    private static final String STATIC = "it is statically linked, and the agent loads into dynamically linked programs only";

    @TempDir
    static Path tmp;

    static Path staticProgram;
    static Path tiny32;

    @BeforeAll
    static void programs() throws Exception
    {
        staticProgram = Workloads.build("untraced", "-static");
        tiny32 = tmp.resolve("tiny32");
        Files.write(tiny32, tiny32());
        Files.setPosixFilePermissions(tiny32, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /**
     * The smallest i386 executable: one PT_LOAD segment, code that exits with status 7
     * (mov eax, 1; mov ebx, 7; int 0x80). ELF-32 object file format, System V ABI i386 supplement.
     */
    private static byte[] tiny32()
    {
        final byte[] code = {(byte)0xb8, 1, 0, 0, 0, (byte)0xbb, 7, 0, 0, 0, (byte)0xcd, (byte)0x80};
        final int base = 0x08048000;
        final int total = 52 + 32 + code.length;
        final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(total).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        b.putShort((short)2).putShort((short)3).putInt(1).putInt(base + 52 + 32).putInt(52).putInt(0).putInt(0)
            .putShort((short)52).putShort((short)32).putShort((short)1).putShort((short)0).putShort((short)0).putShort((short)0);
        b.putInt(1).putInt(0).putInt(base).putInt(base).putInt(total).putInt(total).putInt(5).putInt(0x1000);
        b.put(code);
        return b.array();
    }

    private static Faultline.Result record(final String name, final String... command) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("record", "-q", "-o", tmp.resolve(name).toString(), "--"));
        args.addAll(List.of(command));
        final Faultline.Result result = Faultline.run(args, 120);
        assertEquals(0, result.status(), result.describe());
        return result;
    }

    /** The untraced lines of info, "PID PATH: WHY". */
    private static List<String> infoUntraced(final String name) throws Exception
    {
        final Faultline.Result info = Faultline.run("info", tmp.resolve(name).toString());
        assertEquals(0, info.status(), info.describe());
        final List<String> lines = new ArrayList<>();
        boolean in = false;
        for (final String line : info.out().split("\n"))
        {
            if (line.startsWith("untraced "))
            {
                in = true;
            }
            else if (in && line.isBlank())
            {
                in = false;
            }
            else if (in)
            {
                lines.add(line.replaceAll(" +", " "));
            }
        }
        return lines;
    }

    private static int staticPid(final Faultline.Result result)
    {
        final Matcher m = STATIC_PID.matcher(result.out());
        assertTrue(m.find(), result.describe());
        return Integer.parseInt(m.group(1));
    }

    @Test
    void aStaticProgramExecdByATracedShellIsSaidAndListed() throws Exception
    {
        final Faultline.Result r = record("bash", "bash", "-c", staticProgram + "; echo done");
        final int pid = staticPid(r);
        assertTrue(r.out().endsWith("done\n"), r.describe());
        assertEquals(List.of(String.format(NOTICE, pid, staticProgram, STATIC)), r.err().lines().toList());
        assertEquals(List.of(pid + " " + staticProgram + ": " + STATIC), infoUntraced("bash"));
    }

    /** dash runs a command in a vfork child: its exec, in our memory, is said too. */
    @Test
    void aVforkChildsExecsAreSaid() throws Exception
    {
        final Faultline.Result r = record("dash", "sh", "-c", tiny32 + "; echo $?; " + staticProgram);
        final int pid = staticPid(r);
        assertEquals("7", r.out().lines().findFirst().orElse(""), "the kernel runs the i386 program: " + r.describe());
        final List<String> err = r.err().lines().toList();
        assertEquals(2, err.size(), r.describe());
        assertTrue(err.get(0).matches("faultline record: pid \\d+ runs " + Pattern.quote(tiny32.toString())
            + " untraced: it is a 32-bit program, into which the 64-bit agent cannot load"), r.describe());
        assertEquals(String.format(NOTICE, pid, staticProgram, STATIC), err.get(1));
        assertEquals(2, infoUntraced("dash").size(), r.describe());
    }

    /** python's subprocess: a vfork child that execs through libc's wrapper, said once. */
    @Test
    void aPythonSubprocessIsSaid() throws Exception
    {
        final Faultline.Result r = record("python", "python3", "-c",
            "import subprocess; subprocess.run(['" + staticProgram + "', 'sleep'])");
        final int pid = staticPid(r);
        assertEquals(List.of(String.format(NOTICE, pid, staticProgram, STATIC)), r.err().lines().toList());
        assertEquals(List.of(pid + " " + staticProgram + ": " + STATIC), infoUntraced("python"));
    }

    /** glibc's posix_spawn execs with its internal call, which no wrapper sees: the child is found among the children. */
    @Test
    void aChildStartedBehindTheWrappersIsFoundAndSaid() throws Exception
    {
        final Faultline.Result r = record("spawn", "python3", "-c", "import os; pid = os.posix_spawn('" + staticProgram
            + "', ['x', 'sleep'], os.environ); os.waitpid(pid, 0)");
        final int pid = staticPid(r);
        assertEquals(List.of(String.format(NOTICE, pid, staticProgram, STATIC)), r.err().lines().toList());
        assertEquals(List.of(pid + " " + staticProgram + ": " + STATIC), infoUntraced("spawn"));
    }

    @Test
    void anEnvironmentWithoutTheAgentIsSaid() throws Exception
    {
        final Faultline.Result r = record("env", "env", "-u", "LD_PRELOAD", Workloads.build("untraced").toString());
        assertTrue(r.err().lines().anyMatch(l -> l.endsWith(" untraced: its environment no longer names the agent "
            + "(LD_PRELOAD or FAULTLINE_SHM removed)")), r.describe());
    }

    @Test
    void anExecThatFailsIsSaidToHaveFailed() throws Exception
    {
        final Path notExecutable = tmp.resolve("static-not-executable");
        Files.copy(staticProgram, notExecutable);
        Files.setPosixFilePermissions(notExecutable, PosixFilePermissions.fromString("rw-r--r--"));
        final Faultline.Result r = record("failed", "python3", "-c", "import os\ntry:\n    os.execv('" + notExecutable
            + "', ['x'])\nexcept OSError as e:\n    print('failed', e.errno)");
        assertEquals("failed 13\n", r.out(), r.describe());
        final List<String> err = r.err().lines().toList();
        assertEquals(2, err.size(), r.describe());
        assertTrue(err.get(0).endsWith(" runs " + notExecutable + " untraced: " + STATIC), r.describe());
        assertTrue(err.get(1).endsWith(" did not exec " + notExecutable + " after all (the exec failed); it goes on traced"),
            r.describe());
        assertEquals(List.of(), infoUntraced("failed"));
    }

    /** As nobody, a program set-user-ID to root: the dynamic loader ignores LD_PRELOAD. */
    @Test
    void aSetUserIdProgramIsSaid() throws Exception
    {
        final Path trace = Files.createDirectories(tmp.resolve("nobody")).resolve("trace"); // before AsNobody opens tmp up
        final AsNobody nobody = AsNobody.in(tmp);
        final Path suid = nobody.copy(Workloads.build("untraced"));
        assertEquals(0, new ProcessBuilder("chmod", "4755", suid.toString()).inheritIO().start().waitFor()); // owned by root
        final Faultline.Result r = Faultline.finish(nobody.builder(List.of("record", "-q", "-o", trace.toString(), "--",
            "sh", "-c", suid + " sleep; :")), 120);
        assertEquals(0, r.status(), r.describe());
        final List<String> err = AsNobody.errLines(r).stream().filter(l -> l.startsWith("faultline record: pid")).toList();
        assertEquals(1, err.size(), r.describe());
        assertTrue(err.get(0).endsWith(" runs " + suid + " untraced: it runs set-user-ID, set-group-ID or with file "
            + "capabilities, and the dynamic loader then ignores LD_PRELOAD"), r.describe());
    }
}
