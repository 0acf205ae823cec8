package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * record and a live monitor draw a progress line on stderr when it is a terminal (here a pseudo
 * terminal from script(1), util-linux), erased before the summary; nothing when it is a file.
 */
class ProgressLineTest
{
    private static final String ERASE = "\r\033[K";

    @TempDir
    Path tmp;

    /** The launcher with {@code args} under script(1): stderr is a pseudo terminal, stdout goes nowhere. */
    private static Faultline.Result onTerminal(final List<String> args) throws Exception
    {
        final ProcessBuilder launcher = Faultline.builder(args);
        final StringBuilder shell = new StringBuilder();
        for (final String word : launcher.command())
        {
            shell.append('\'').append(word.replace("'", "'\\''")).append("' ");
        }
        final ProcessBuilder script = new ProcessBuilder("script", "-qec", shell + ">/dev/null", "/dev/null");
        script.environment().putAll(launcher.environment());
        return Faultline.finish(script, 120);
    }

    @Test
    void recordDrawsItsLineOnATerminalOnly() throws Exception
    {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "script(1) from util-linux gives the pseudo terminal");
        final String churn = Workloads.build("churn").toString();
        // churn sleeps 2 s at its end: the line's first draw comes after 1 s
        final Faultline.Result terminal = onTerminal(List.of("record", "-o", tmp.resolve("a").toString(), "--", churn,
            "1", "sleep", "2"));
        assertEquals(0, terminal.status(), terminal.describe());
        final String shown = terminal.out();
        assertTrue(shown.matches("(?s).*\rRecording: [0-9,]+ references, [0-9.]+ [kM]?/s, \\d+ s, 1 process, 1 thread\033\\[K\r.*"),
            shown);
        final int summary = shown.indexOf("faultline: ");
        assertTrue(summary > 0 && shown.substring(0, summary).endsWith(ERASE), "erased before the summary: " + shown);

        final Faultline.Result file = Faultline.run("record", "-o", tmp.resolve("b").toString(), "--", churn, "1",
            "sleep", "2");
        assertEquals(0, file.status(), file.describe());
        assertFalse(file.err().contains("Recording:") || file.err().contains("\r"), file.describe());
    }

    @Test
    void liveMonitorDrawsItsLine() throws Exception
    {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "script(1) from util-linux gives the pseudo terminal");
        final List<String> args = new ArrayList<>(List.of("monitor", "-o", tmp.resolve("m").toString(), "--",
            Workloads.build("churn").toString(), "1", "sleep", "2"));
        final Faultline.Result terminal = onTerminal(args);
        assertEquals(0, terminal.status(), terminal.describe());
        assertTrue(terminal.out().matches("(?s).*\rMonitoring pid \\d+: [0-9,]+ aggregations?, [0-9,]+ faults, .*, "
            + "\\d+ s, \\d+ threads? with the agent's\033\\[K\r.*"), terminal.out());
        final int summary = terminal.out().indexOf("faultline monitor: ");
        assertTrue(summary > 0 && terminal.out().substring(0, summary).endsWith(ERASE), terminal.out());
    }
}
