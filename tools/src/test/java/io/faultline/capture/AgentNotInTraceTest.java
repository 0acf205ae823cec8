package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * No reference, stack frame or mapping of the agent's own in the trace of a real program
 * (issue 40), under every engine, with call stacks where the engine gives them (sigbus,
 * mprotect) and in Moca mode: libfaultline appears nowhere in what info, dump and report
 * callsites print, and every frame of every call stack lies in code the trace announced (a
 * frame of the agent's would lie in no announced code: the agent never announces its own). Before:
 * every trace had references in a "libfaultline.so" mapping (the dynamic loader's allocations and
 * a python arena merged into the agent's .bss line), and report callsites listed
 * fl_futex_wait <- fl_req_call_text as the program's.
 */
class AgentNotInTraceTest
{
    private static final Pattern CODE_MAP = Pattern.compile("^-- \\S+ \\S+ (\\d+) \\d+ code-map a=0x([0-9a-f]+) b=0x([0-9a-f]+)");
    private static final Pattern STACK = Pattern.compile("^-- \\S+ \\S+ (\\d+) \\d+ stack a=\\S+ b=\\S+ ([0-9a-f ]+)$");

    @TempDir
    static Path tmp;

    private static List<String> python()
    {
        return List.of("python3", "-c", "d = {str(i): [i] * 8 for i in range(30000)}; print(sum(len(v) for v in d.values()))");
    }

    private static List<String> jvm()
    {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto", "-version");
    }

    private static List<String> pipeline()
    {
        return List.of("sh", "-c", "seq 1 30000 | sort -rn | head -3");
    }

    @BothEngines
    void python(final String engine) throws Exception
    {
        assertAgentNowhere("python-" + engine, engine, "trace", python());
    }

    @BothEngines
    void aJvm(final String engine) throws Exception
    {
        assertAgentNowhere("jvm-" + engine, engine, "trace", jvm());
    }

    @BothEngines
    void aShellPipeline(final String engine) throws Exception
    {
        assertAgentNowhere("pipeline-" + engine, engine, "trace", pipeline());
    }

    /** Moca mode runs on the userfaultfd engines only. */
    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"uffd", "sigbus"})
    void aShellPipelineInMocaMode(final String engine) throws Exception
    {
        assertAgentNowhere("moca-" + engine, engine, "moca", pipeline());
    }

    private static void assertAgentNowhere(final String name, final String engine, final String mode, final List<String> command)
        throws Exception
    {
        final Path trace = tmp.resolve(name);
        final boolean stacks = !engine.equals("uffd") && mode.equals("trace");
        final List<String> record = new ArrayList<>(List.of("record", "-q", "-o", trace.toString(), "--engine", engine, "--mode", mode));
        if (stacks)
        {
            record.addAll(List.of("--stacks", "16"));
        }
        record.add("--");
        record.addAll(command);
        final Faultline.Result recorded = Faultline.run(record, 300);
        assertEquals(0, recorded.status(), recorded.describe());

        final Faultline.Result info = Faultline.run("info", trace.toString());
        final Faultline.Result dump = Faultline.run("dump", trace.toString());
        assertEquals(0, info.status(), info.describe());
        assertEquals(0, dump.status(), dump.describe());
        assertNowhere(name + ": info", info.out());
        assertNowhere(name + ": dump", dump.out());
        assertTrue(dump.out().lines().count() > 100, name + " was traced:\n" + info.out());
        if (!stacks)
        {
            return;
        }
        final Faultline.Result callsites = Faultline.run("report", "callsites", "--full", "--top", "0", trace.toString());
        assertEquals(0, callsites.status(), callsites.describe());
        assertNowhere(name + ": report callsites", callsites.out());

        // every frame in code the trace announced, per process
        final Map<String, List<long[]>> code = new HashMap<>();
        int frames = 0;
        for (final String line : dump.out().split("\n"))
        {
            final Matcher map = CODE_MAP.matcher(line);
            if (map.find())
            {
                code.computeIfAbsent(map.group(1), k -> new ArrayList<>())
                    .add(new long[] {Long.parseUnsignedLong(map.group(2), 16), Long.parseUnsignedLong(map.group(3), 16)});
                continue;
            }
            final Matcher stack = STACK.matcher(line);
            if (!stack.find())
            {
                continue;
            }
            for (final String frame : stack.group(2).trim().split(" "))
            {
                final long pc = Long.parseUnsignedLong(frame, 16);
                frames++;
                if (code.getOrDefault(stack.group(1), List.of()).stream().noneMatch(r -> pc >= r[0] && pc < r[1]))
                {
                    fail(name + ": frame 0x" + frame + " lies in no code the trace announced for pid " + stack.group(1)
                        + " (the agent's?): " + line);
                }
            }
        }
        assertTrue(frames > 30, name + ": " + frames + " frames in the trace's stacks");
    }

    private static void assertNowhere(final String what, final String text)
    {
        final String lower = text.toLowerCase(Locale.ROOT);
        assertFalse(lower.contains("libfaultline"), what + " names the agent:\n"
            + text.lines().filter(l -> l.toLowerCase(Locale.ROOT).contains("libfaultline")).limit(10).toList());
    }
}
