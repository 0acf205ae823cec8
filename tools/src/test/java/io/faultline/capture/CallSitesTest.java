package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * record --stacks (issue 29, call sites): the workload two_callers makes its trapped references
 * from two known functions in a known ratio (touch_a 48 per round, touch_b 16, both called from
 * main; main itself reads touch_a's 48 pages at the end), and report callsites and export --to
 * folded give exactly those counts, named from the executable's symbols, with main as the caller.
 */
class CallSitesTest
{
    private static final int ROUNDS = 10;
    private static final Pattern SITE = Pattern.compile("(?m)^ +([\\d,]+) +[\\d.]+% +(\\S.*)$");

    @TempDir
    Path tmp;

    private static Path workload()
    {
        return Workloads.build("two_callers", "-fno-omit-frame-pointer");
    }

    /**
     * Scope api: only the two buffers are traced, so every record is one of the workload's writes
     * or main's reads, and the counts are exact; the stack itself is untraced memory.
     */
    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"sigbus", "mprotect"})
    void eachFunctionsTrappedReferencesAreCountedExactlyUnderItsName(final String engine) throws Exception
    {
        final Path trace = tmp.resolve("t");
        final Faultline.Result rec = Faultline.run("record", "-q", "--engine", engine, "--scope", "api", "--evms", "16",
            "--stacks", "8", "-o", trace.toString(), "--", workload().toString(), String.valueOf(ROUNDS), "api");
        assertEquals(0, rec.status(), rec.describe());

        final Faultline.Result sites = Faultline.run("report", "callsites", trace.toString());
        assertEquals(0, sites.status(), sites.describe());
        assertEquals(Map.of("touch_a", 48L * ROUNDS, "touch_b", 16L * ROUNDS, "main", 48L), counts(sites.out()),
            sites.out());
        assertTrue(sites.out().startsWith(String.format(java.util.Locale.ROOT, "%,d trapped references, %,d with a call stack", 64 * ROUNDS + 48,
            64 * ROUNDS + 48)), sites.out());

        final Path folded = tmp.resolve("out.folded");
        final Faultline.Result export = Faultline.run("export", "--to", "folded", "-o", folded.toString(), trace.toString());
        assertEquals(0, export.status(), export.describe());
        final Map<String, Long> byLeaf = new HashMap<>();
        for (final String line : Files.readAllLines(folded))
        {
            final int space = line.lastIndexOf(' ');
            final List<String> frames = List.of(line.substring(0, space).split(";"));
            final String leaf = frames.get(frames.size() - 1);
            byLeaf.merge(leaf, Long.parseLong(line.substring(space + 1)), Long::sum);
            if (!leaf.equals("main"))
            {
                assertEquals("main", frames.get(frames.size() - 2), "main calls " + leaf + ": " + line);
            }
        }
        assertEquals(Map.of("touch_a", 48L * ROUNDS, "touch_b", 16L * ROUNDS, "main", 48L), byLeaf,
            Files.readString(folded));
    }

    /**
     * Scope all: the stack is traced too, and with 16 pages enabled its pages are evicted while
     * touch_a and touch_b run, so walks meet disabled stack pages (read from the sigbus engine's
     * parking slot, or through PROT_NONE under mprotect) and some stack references trap on their
     * own (touch_a's ret): every write is still counted under its function, called from main.
     */
    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"sigbus", "mprotect"})
    void stacksAreWhereTheStackItselfIsDisabled(final String engine) throws Exception
    {
        final Path trace = tmp.resolve("t");
        final Faultline.Result rec = Faultline.run("record", "-q", "--engine", engine, "--evms", "16", "--stacks", "8",
            "-o", trace.toString(), "--", workload().toString(), String.valueOf(ROUNDS));
        assertEquals(0, rec.status(), rec.describe());
        final Faultline.Result sites = Faultline.run("report", "callsites", "--depth", "2", "--top", "0", trace.toString());
        assertEquals(0, sites.status(), sites.describe());
        final Map<String, Long> counts = counts(sites.out());
        assertTrue(counts.getOrDefault("touch_a <- main", 0L) >= 48L * ROUNDS, sites.out());
        assertTrue(counts.getOrDefault("touch_b <- main", 0L) >= 16L * ROUNDS, sites.out());
        for (final String site : counts.keySet())
        {
            assertTrue(!site.startsWith("touch_") || site.endsWith(" <- main"), "main calls " + site + ":\n" + sites.out());
        }
    }

    /**
     * A shell that runs the workload twice (each run a process image forked from the shell and
     * exec'd, or the shell's own image replaced by exec for the last command): every image's
     * stack ids start at 1 and name other addresses (each maps the executable and libc at its own
     * place); keyed by pid and image, every reference is counted under its function.
     */
    @Test
    void stacksOfForkedAndExecdImagesAreKeptApart() throws Exception
    {
        final Path trace = tmp.resolve("t");
        final String w = workload().toString();
        final Faultline.Result rec = Faultline.run("record", "-q", "--scope", "api", "--evms", "16", "--stacks", "8", "-o",
            trace.toString(), "--", "sh", "-c", w + " 2 api && " + w + " 3 api");
        assertEquals(0, rec.status(), rec.describe());
        final Faultline.Result sites = Faultline.run("report", "callsites", "--depth", "2", trace.toString());
        assertEquals(0, sites.status(), sites.describe());
        final Map<String, Long> counts = counts(sites.out());
        assertEquals(48L * 5, counts.get("touch_a <- main"), sites.out());
        assertEquals(16L * 5, counts.get("touch_b <- main"), sites.out());
        assertEquals(48L * 2, counts.entrySet().stream().filter(e -> e.getKey().startsWith("main"))
            .mapToLong(Map.Entry::getValue).sum(), sites.out());
    }

    @Test
    void aTraceWithoutStacksIsRefusedWithTheFix() throws Exception
    {
        final Path trace = tmp.resolve("t");
        final Faultline.Result rec = Faultline.run("record", "-q", "--scope", "api", "--evms", "16", "-o", trace.toString(),
            "--", workload().toString(), "1", "api");
        assertEquals(0, rec.status(), rec.describe());
        final Faultline.Result sites = Faultline.run("report", "callsites", trace.toString());
        assertEquals(2, sites.status(), sites.describe());
        assertEquals("faultline report callsites: " + trace + " was recorded without call stacks; record with --stacks N "
            + "(e.g. --stacks 16)", sites.err().strip());
        final Faultline.Result uffd = Faultline.run("record", "--engine", "uffd", "--stacks", "8", "-o",
            tmp.resolve("u").toString(), "--", "true");
        assertEquals(2, uffd.status(), uffd.describe());
        assertTrue(uffd.err().strip().endsWith("record with --engine sigbus or mprotect"), uffd.describe());
        assertEquals(1, uffd.err().strip().lines().count(), uffd.describe());
    }

    /** Call site (its frames as printed) to references, from report callsites' table. */
    private static Map<String, Long> counts(final String out)
    {
        final Map<String, Long> counts = new HashMap<>();
        final Matcher m = SITE.matcher(out);
        while (m.find())
        {
            if (!m.group(2).startsWith("("))
            {
                counts.put(m.group(2).strip(), Long.parseLong(m.group(1).replace(",", "")));
            }
        }
        return counts;
    }
}
