package io.faultline.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.damon.schemes.Scheme;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The --scheme grammar and the --schemes JSON form: what they read (shown in the scheme's
 * canonical form, core units: bytes, samples, aggregation intervals, microseconds), that the two
 * forms read the same, and the one-line errors of malformed schemes.
 */
class SchemeSpecTest
{
    /** 5 ms sampling, 100 ms aggregation: at most 20 samples per aggregation. */
    private static final Attributes ATTRS = Attributes.DEFAULTS;

    @TempDir
    Path tmp;

    @Test
    void helpDocumentsTheGrammar()
    {
        final CommandRun help = CommandRun.of("monitor", "--help");
        assertEquals(0, help.status());
        assertEquals("", help.err());
        assertTrue(help.out().contains("  nr_accesses=MIN-MAX    samples per aggregation, or % of the most (0-0, 0%-10%)"),
            help.out());
        assertTrue(help.out().contains("  filter=TYPE:in|out[:ARG]"), help.out());
    }

    @Test
    void readsTheIssuesExample()
    {
        assertEquals("action=pageout,sz=4096-max,nr_accesses=0-0,age=20-max",
            SchemeSpec.parse("action=pageout,sz=4K-max,nr_accesses=0-0,age=2s-max", ATTRS).toString());
    }

    @Test
    void percentagesAndTimesConvertAsDamoDoes()
    {
        // 10% of 20 samples is 2; 55% is 11 (rounded down); 250 ms is 2 aggregations (rounded down).
        assertEquals("action=cold,sz=0-max,nr_accesses=2-11,age=2-7",
            SchemeSpec.parse("action=cold,nr_accesses=10%-55%,age=250ms-7", ATTRS).toString());
        assertEquals("action=stat,sz=0-8192,nr_accesses=0-max,age=0-max",
            SchemeSpec.parse("action=stat,sz=min-8K,nr_accesses=min-max", ATTRS).toString());
    }

    @Test
    void readsEveryControl() throws IOException
    {
        final Path input = Files.writeString(tmp.resolve("input"), "5\n");
        final Scheme s = SchemeSpec.parse("action=hugepage,nr_accesses=50%-max,apply_interval=1s,quota_ms=10,"
            + "quota_sz=1M,quota_reset=1s,weights=0:3:1,goal=user_input:100:" + input + ",wmarks=free_mem_rate:5s:500:400:200,"
            + "filter=addr:in:0x7f00-0x7f80,filter=anon:out,filter=target:in:0", ATTRS);
        assertEquals("action=hugepage,sz=0-max,nr_accesses=10-max,age=0-max,apply_interval=1000000us,quota_ms=10,"
            + "quota_sz=1048576,quota_reset=1000ms,weights=0:3:1,goal=user_input:100:" + input
            + ",wmarks=free_mem_rate:5000000us:500:400:200,filter=addr:in:0x7f00-0x7f80,filter=anon:out,"
            + "filter=target:in:0", s.toString());
        // The canonical form reads back to itself.
        assertEquals(s.toString(), SchemeSpec.parse(s.toString(), ATTRS).toString());
    }

    @Test
    void jsonInDamosShapeReadsAsTheSpec() throws IOException
    {
        final Path json = Files.writeString(tmp.resolve("schemes.json"), """
            [
              {
                "action": "pageout",
                "access_pattern": {
                  "sz_bytes": {"min": "4 KiB", "max": "max"},
                  "nr_accesses": {"min": "0 %", "max": "0 %"},
                  "age": {"min": "2 s", "max": "max"}
                },
                "apply_interval_us": 0,
                "quotas": {
                  "time_ms": 0, "sz_bytes": "1M", "reset_interval_ms": 1000,
                  "goals": [],
                  "effective_sz_bytes": 0,
                  "weights": {"sz_permil": 0, "nr_accesses_permil": 1, "age_permil": 1}
                },
                "watermarks": {"metric": "none", "interval_us": 0, "high_permil": 0, "mid_permil": 0, "low_permil": 0},
                "filters": [
                  {"filter_type": "addr", "matching": true, "allow": false, "memcg_path": null,
                   "address_range": {"start": 4096, "end": 8192}, "damon_target_idx": null}
                ],
                "stats": {"nr_tried": 0}
              },
              {"action": "stat"}
            ]
            """);
        final List<Scheme> schemes = SchemesJson.read(json, ATTRS);
        assertEquals(2, schemes.size());
        assertEquals(SchemeSpec.parse("action=pageout,sz=4K-max,nr_accesses=0%-0%,age=2s-max,quota_sz=1M,"
            + "quota_reset=1s,weights=0:1:1,filter=addr:out:4096-8192", ATTRS).toString(), schemes.get(0).toString());
        assertEquals("action=stat,sz=0-max,nr_accesses=0-max,age=0-max", schemes.get(1).toString());
    }

    private static void assertBadScheme(final String spec, final String contains)
    {
        final CliException ex = assertThrows(CliException.class, () -> SchemeSpec.parse(spec, ATTRS));
        assertEquals(2, ex.exitCode());
        assertTrue(ex.getMessage().startsWith("--scheme '" + spec + "': "), ex.getMessage());
        assertTrue(ex.getMessage().contains(contains), ex.getMessage());
        assertTrue(!ex.getMessage().contains("\n"), ex.getMessage());
    }

    @Test
    void malformedSchemesNameTheField()
    {
        assertBadScheme("action=evict", "unknown action 'evict'; give one of willneed, cold, pageout");
        assertBadScheme("action=stat,age=5-2", "the age range is reversed (5 > 2 aggregation intervals)");
        assertBadScheme("action=stat,sz=8K-4K", "the size range is reversed");
        assertBadScheme("action=stat,nr_accesses=50%-10%", "the nr_accesses range is reversed");
        assertBadScheme("action=pageout,quota_sz=1M", "a quota (quota_ms, quota_sz or goal) needs its reset interval");
        assertBadScheme("action=stat,filter=anon:maybe", "a filter is in or out, not 'maybe'");
        assertBadScheme("action=stat,filter=memcg:in", "unknown filter type 'memcg'; give anon, addr or target");
        assertBadScheme("action=stat,filter=addr:in:0x80-0x10", "an addr filter's range must have START < END");
        assertBadScheme("action=stat,colour=red", "unknown key 'colour'; the keys are action, sz");
        assertBadScheme("action=stat,age", "'age' has no value; give age=VALUE");
        assertBadScheme("action=stat,age=5", "age takes a range MIN-MAX");
        assertBadScheme("action=stat,age=1x-max", "age: '1x' is not a duration");
        assertBadScheme("sz=0-max", "no action; give action=ACTION");
        assertBadScheme("action=stat,sz=4Q-max", "sz: '4Q' is not a size");
        assertBadScheme("action=stat,wmarks=free_mem_rate:1s:200:400:500", "watermarks must be HIGH >= MID >= LOW");
        assertBadScheme("action=stat,goal=user_input:100", "a user_input goal needs the file its value is read from");
        assertBadScheme("action=stat,goal=bogus:1", "unknown goal metric 'bogus'");
        final Path missing = tmp.resolve("missing");
        assertBadScheme("action=stat,goal=user_input:100:" + missing, "cannot read " + missing + "; write the"
            + " current value of the user_input goal into it first");
    }

    @Test
    void badInputOnTheCommandLineIsOneLineAndExit2() throws IOException
    {
        final Path trace = FaultlineTraces.write(tmp.resolve("trace"), 4096, new long[] {1, 11, 0x1000});
        final CommandRun bad = CommandRun.of("monitor", "--from-trace", trace.toString(), "-o",
            tmp.resolve("out").toString(), "--scheme", "action=evict");
        assertEquals(2, bad.status(), bad.toString());
        assertEquals(1, bad.errLines().length, bad.toString());
        assertTrue(bad.err().startsWith("faultline monitor: --scheme 'action=evict': unknown action 'evict'"), bad.err());

        final Path notJson = Files.writeString(tmp.resolve("s.json"), "action=pageout\n");
        final CommandRun json = CommandRun.of("monitor", "--from-trace", trace.toString(), "-o",
            tmp.resolve("out2").toString(), "--schemes", notJson.toString());
        assertEquals(2, json.status(), json.toString());
        assertEquals(1, json.errLines().length, json.toString());
        assertTrue(json.err().startsWith("faultline monitor: --schemes: " + notJson + " is not JSON ("), json.err());
        assertTrue(json.err().contains("give a JSON list of schemes"), json.err());

        final Path wrongShape = Files.writeString(tmp.resolve("w.json"), "[{\"action\": \"pageout\", \"colour\": 1}]");
        final CommandRun shape = CommandRun.of("monitor", "--from-trace", trace.toString(), "-o",
            tmp.resolve("out3").toString(), "--schemes", wrongShape.toString());
        assertEquals(2, shape.status(), shape.toString());
        assertEquals("faultline monitor: --schemes: " + wrongShape + ": scheme 0: unknown field \"colour\"",
            shape.lastErrLine());
        assertTrue(!Files.exists(tmp.resolve("out")) && !Files.exists(tmp.resolve("out3")));
    }
}
