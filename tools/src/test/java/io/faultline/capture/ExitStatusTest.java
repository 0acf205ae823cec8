package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exit statuses that need the launcher as a user runs it: another user, a small heap, a
 * recording (the in-process classes are in tools' ExitStatusTest).
 */
class ExitStatusTest
{
    @TempDir
    Path tmp;

    private static String oneLine(final Faultline.Result result)
    {
        final List<String> lines = result.err().strip().lines()
            .filter(l -> !l.startsWith("Picked up JAVA_TOOL_OPTIONS")).toList();
        assertEquals(1, lines.size(), result.describe());
        return lines.get(0);
    }

    @Test
    void aHeaderNobodyMayReadIsAPermissionProblemNotACorruptTrace() throws Exception
    {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
            "setpriv to another user needs root; the tests run as " + System.getProperty("user.name"));
        final Path trace = tmp.resolve("trace");
        assertEquals(0, Faultline.run("record", "-q", "-o", trace.toString(), "--", "true").status());
        final ProcessBuilder builder = AsNobody.in(tmp).builder(List.of("info", trace.toString()));
        final Path header = trace.resolve(TraceLayout.HEADER_FILE);
        Files.setPosixFilePermissions(header, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        final Faultline.Result result = Faultline.exec(builder.command(), 60, builder.environment());
        assertEquals(3, result.status(), result.describe());
        assertEquals("faultline info: cannot read trace header " + header + ": permission denied; read it as a user "
            + "who may, or give this one read access", oneLine(result));
    }

    @Test
    void anOutputTheOsRefusesSaysTheOsReason() throws Exception
    {
        // root may write /proc as far as access(2) says, but mkdir fails there
        final Faultline.Result result = Faultline.run("record", "-o", "/proc/faultline-test", "--", "true");
        assertEquals(3, result.status(), result.describe());
        assertEquals("faultline record: cannot create output directory /proc/faultline-test: no such file or directory; "
            + "choose another -o", oneLine(result));
    }

    @Test
    void aSimulationBeyondTheHeapIsRefusedUpFrontAsALimit() throws Exception
    {
        // 200,000 distinct pages; ARC at 150,000 keeps 300,001 slots, about 21 MB, twice at once
        final Path trace = Files.writeString(tmp.resolve("keys.txt"),
            LongStream.range(0, 200_000).mapToObj(Long::toString).collect(Collectors.joining("\n", "", "\n")));
        final ProcessBuilder builder = Faultline.builder(List.of("simulate", "--format", "lirs", "--policies", "arc",
            "--sizes", "150000,150001", "--threads", "2", trace.toString()));
        builder.environment().put("FAULTLINE_JAVA_OPTS", "-Xmx48m");
        final Faultline.Result result = Faultline.finish(builder, 60);
        assertEquals(5, result.status(), result.describe());
        final String line = result.err().strip().lines().reduce((a, b) -> b).orElse("");
        assertTrue(line.matches("faultline simulate: arc at 150,001 pages needs [0-9.]+ MiB of heap, 2 runs at once .*"),
            result.describe());
        assertTrue(line.contains("give smaller sizes, fewer at once (--threads 1), or more heap "
            + "(FAULTLINE_JAVA_OPTS=-Xmx"), result.describe());
        assertTrue(!result.err().contains("OutOfMemoryError") && !result.err().contains("\tat "), result.describe());
    }

    @Test
    void aRecordingExitsWithTheProgramsStatus() throws Exception
    {
        final Faultline.Result result = Faultline.run("record", "-q", "-o", tmp.resolve("t").toString(), "--",
            "sh", "-c", "exit 7");
        assertEquals(7, result.status(), result.describe());
        assertEquals("", result.err().strip(), result.describe());
        assertTrue(TraceHeader.read(tmp.resolve("t").resolve(TraceLayout.HEADER_FILE)).isComplete());
    }
}
