package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tracing never changes what a program computes: the same output with and without faultline. */
class IntegrityTest
{
    @TempDir
    Path tmp;

    /** The engine of the running test ({@link BothEngines}). */
    private String engine = "uffd";

    @BothEngines
    void heapMmapAndStackChurnGivesTheNativeChecksumUnderScopeAll(final String engine) throws Exception
    {
        this.engine = engine;
        final String churn = Workloads.build("churn").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(churn, "6"), 120);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        for (final String evms : List.of("16", "64", "512"))
        {
            final Path trace = tmp.resolve("churn-" + evms);
            final Faultline.Result traced = Faultline.run(List.of("record", "-q", "--engine", engine, "-o", trace.toString(), "--evms", evms,
                "--", churn, "6"), 300);
            assertEquals(0, traced.status(), traced.describe());
            assertEquals(nativeRun.out(), traced.out(), "evms " + evms);
            final Traces traces = Traces.read(trace);
            assertTrue(traces.refs.size() > 1000, "a scope-all trace of churn holds its references: " + traces.refs.size());
        }
    }

    @BothEngines
    void memoryChecksumOfTheRegisteredRangeIsUnchangedUnderScopeApi(final String engine) throws Exception
    {
        this.engine = engine;
        final Path data = tmp.resolve("data.bin");
        final byte[] bytes = new byte[4096];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte)(i * 13 + 5);
        }
        Files.write(data, bytes);
        final Path trace = tmp.resolve("api");
        recordLikeNative(trace, List.of("--scope", "api", "--evms", "16"), Workloads.build("api_script").toString(),
            "64", "40", "w3,r5,s7,w60,s63,r1,w40,s2", data.toString(), "checksum");
        assertTrue(Traces.read(trace).refs.size() >= 64, "the checksum pass reads every one of the 64 pages");
    }

    /**
     * Tracing a range again disables its enabled pages; its parked pages' slots are occupied, so
     * the move out meets EEXIST there. An agent that took every occupied slot for a stale copy
     * dropped those pages' contents (it did, until 2026-11-21).
     */
    @BothEngines
    void tracingATracedRangeAgainKeepsItsParkedPages(final String engine) throws Exception
    {
        this.engine = engine;
        recordLikeNative(tmp.resolve("again"), List.of("--scope", "api", "--evms", "16"),
            Workloads.build("api_script").toString(), "64", "64", "r1,w2,r3,t0,r4,w5,t0,r63", "/dev/null", "checksum");
    }

    /**
     * A fork behind glibc's back (syscall(SYS_fork), SYS_clone and SYS_clone3 without CLONE_VM):
     * the children see the parent's memory complete (the old agent left its parked pages as
     * holes in the first child) and run untraced, saying so on stderr.
     */
    @BothEngines
    void rawForksGiveTheirChildrenCompleteMemoryAndSaySo(final String engine) throws Exception
    {
        this.engine = engine;
        final Faultline.Result traced = recordLikeNative(tmp.resolve("rawfork"), List.of("--evms", "16"),
            Workloads.build("rawfork").toString(), "64");
        assertTrue(traced.err().contains("syscall(SYS_fork): this child process runs untraced"), traced.describe());
        assertEquals(2, traced.err().split("syscall\\(SYS_clone\\) without CLONE_VM: this child process runs untraced",
            -1).length - 1, traced.describe());
    }

    /** Runs the program natively and under record with the options: same exit status 0, same stdout. */
    private Faultline.Result recordLikeNative(final Path trace, final List<String> options, final String... program)
        throws Exception
    {
        final Faultline.Result nativeRun = Faultline.exec(List.of(program), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final List<String> record = new java.util.ArrayList<>(List.of("record", "-q", "--engine", engine, "-o", trace.toString()));
        record.addAll(options);
        record.add("--");
        record.addAll(List.of(program));
        final Faultline.Result traced = Faultline.run(record, 120);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(stripBase(nativeRun.out()), stripBase(traced.out()));
        return traced;
    }

    private static String stripBase(final String out)
    {
        return out.replaceAll("base=0x[0-9a-f]+ ", "");
    }
}
