package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent and its forked child take turns touching pages (pingpong.c), so the program fixes
 * the order of their references; the recorder drains the two rings in its own order. The
 * trace read back follows the program: pages 0, 1, 2, ... alternating parent and child, in
 * increasing seq, with the fork event before the child's first reference.
 */
class ProcessOrderTest
{
    private static final int PAGE = 4096;
    private static final Pattern BASE = Pattern.compile("base=0x([0-9a-f]+)");

    @TempDir
    Path tmp;

    @Test
    void referencesOfAParentAndItsChildComeInSeqOrder() throws Exception
    {
        final int pages = 400;
        final Path trace = tmp.resolve("pingpong");
        final Faultline.Result result = Faultline.run(List.of("record", "-q", "--evms", "16", "-o", trace.toString(),
            "--", Workloads.build("pingpong").toString(), String.valueOf(pages)), 120);
        assertEquals(0, result.status(), result.describe());
        final Matcher m = BASE.matcher(result.out());
        assertTrue(m.find(), result.describe());
        final long base = Long.parseUnsignedLong(m.group(1), 16);

        final Traces traces = Traces.read(trace);
        final TraceEvent fork = traces.events.stream().filter(e -> e.type() == EventType.FORK).findFirst().orElseThrow();
        final int parent = fork.pid();
        final List<Long> pagesSeen = new ArrayList<>();
        final List<String> roles = new ArrayList<>();
        long previous = -1;
        for (final Traces.Ref ref : traces.refs)
        {
            assertTrue(ref.seq() > previous, "seq increases in the order references are read: " + ref);
            previous = ref.seq();
            final long page = Long.divideUnsigned(ref.address() - base, PAGE);
            if (ref.address() >= base && page < pages)
            {
                pagesSeen.add(page);
                roles.add(ref.pid() == parent ? "parent" : "child");
            }
        }
        final List<Long> expectedPages = new ArrayList<>();
        final List<String> expectedRoles = new ArrayList<>();
        for (long p = 0; p < pages; p++)
        {
            expectedPages.add(p);
            expectedRoles.add(p % 2 == 0 ? "parent" : "child");
        }
        assertEquals(expectedPages, pagesSeen);
        assertEquals(expectedRoles, roles);

        final long firstChildSeq = traces.refs.stream().filter(r -> r.pid() == (int)fork.a()).findFirst()
            .orElseThrow().seq();
        assertTrue(fork.seq() <= firstChildSeq, "fork at seq " + fork.seq() + ", child's first reference " + firstChildSeq);
    }
}
