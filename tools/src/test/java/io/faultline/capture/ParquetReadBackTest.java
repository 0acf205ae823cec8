package io.faultline.capture;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * export --to parquet (issue 44) of a real recording, four threads writing 200 pages each under
 * a 32-page EVMS, read back in Python as a researcher would (pyarrow, pandas and polars for the
 * rows, DuckDB for the counts; .ci/run installs them): every reference and every eviction, in
 * order and with every value, read by each of the three, is the line faultline dump --format csv
 * prints for it; the three count every table's rows alike; and the counts and each
 * mapping's references, faults and pages are info's; every table has docs/SQL.md's columns and
 * types as pyarrow reads them. faultline sql's threads table gives info's per-thread counts and
 * names.
 * <p>
 * The test fails, not skips, where python3 or its modules are missing: its message names the
 * install command.
 */
class ParquetReadBackTest
{
    private static final String INSTALL = "python3 -m pip install duckdb==1.5.6 pandas==2.3.3 polars==1.44.2 "
        + "pyarrow==25.0.1";
    private static final Pattern TOTALS = Pattern.compile("(?m)^references +([\\d,]+) \\(read faults ([\\d,]+), write faults "
        + "([\\d,]+)\\)");

    @TempDir
    Path tmp;

    @Test
    void theExportedTablesReadBackInPythonAsDumpAndInfoShowTheTrace() throws Exception
    {
        final Path trace = tmp.resolve("threads");
        final Faultline.Result rec = Faultline.run("record", "-q", "--evms", "32", "-o", trace.toString(), "--",
            Workloads.build("threads").toString(), "4", "200");
        assertEquals(0, rec.status(), rec.describe());
        final Path dir = tmp.resolve("parquet");
        final Faultline.Result export = Faultline.run("export", "--to", "parquet", "-o", dir.toString(), trace.toString());
        assertEquals(0, export.status(), export.describe());

        final Path out = Files.createDirectory(tmp.resolve("python"));
        final String python = python(dir, out);

        final Faultline.Result dump = Faultline.run("dump", "--format", "csv", trace.toString());
        assertEquals(0, dump.status(), dump.describe());
        final List<String> refs = new ArrayList<>();
        final List<String> evictions = new ArrayList<>();
        dump.out().lines().skip(1).forEach(line -> (line.contains(",evict,") ? evictions : refs).add(line));
        assertTrue(refs.size() > 1600 && evictions.size() > 1600, "every page written twice under a 32-page EVMS: "
            + refs.size() + " references, " + evictions.size() + " evictions");
        for (final String reader : List.of("pyarrow", "pandas", "polars"))
        {
            final String file = reader.equals("pyarrow") ? ".csv" : "-" + reader + ".csv";
            assertEquals(refs, Files.readAllLines(out.resolve("refs" + file)),
                "refs.parquet's rows as dump's lines, read by " + reader);
            assertEquals(evictions, Files.readAllLines(out.resolve("evictions" + file)),
                "evictions.parquet's rows as dump's, read by " + reader);
        }

        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        final Matcher totals = TOTALS.matcher(info.out());
        assertTrue(totals.find(), info.out());
        final List<String> lines = python.lines().toList();
        assertEquals("references " + number(totals.group(1)) + " reads " + number(totals.group(2)) + " writes "
            + number(totals.group(3)), lines.get(0), python);
        assertEquals("evictions " + evictions.size() + " dirty "
            + evictions.stream().filter(l -> l.endsWith(",w") || l.endsWith(",W")).count(), lines.get(1), python);
        // info's mapping table: name, references, read faults, write faults, pages, pages written
        final TreeSet<String> infoMappings = new TreeSet<>();
        final String mappingTable = info.out().substring(info.out().indexOf("\nmapping "));
        mappingTable.lines().skip(2).filter(l -> !l.isBlank()).map(l -> l.trim().split(" +"))
            .filter(f -> f.length == 6)
            .forEach(f -> infoMappings.add("mapping " + f[0] + " " + number(f[1]) + " " + number(f[2]) + " "
                + number(f[3]) + " " + number(f[4])));
        assertTrue(infoMappings.size() >= 3, info.out());
        final List<String> mappingLines = lines.stream().filter(l -> l.startsWith("mapping ")).toList();
        assertEquals(infoMappings, new TreeSet<>(mappingLines), python + "\n" + info.out());
        // every table's columns and types as pyarrow reads them: docs/SQL.md's
        assertEquals(List.of(
            "schema refs seq:int64 time_ns:int64 pid:int32 tid:int32 address:int64 page:int64 write:bool kernel:bool "
                + "stack_id:int32 mapping_id:int32",
            "schema evictions seq:int64 time_ns:int64 pid:int32 tid:int32 address:int64 page:int64 tag:string dirty:bool "
                + "referenced:bool deleted:bool mapping_id:int32",
            "schema events seq:int64 time_ns:int64 pid:int32 tid:int32 type:string code:int32 kernel:bool a:int64 b:int64 "
                + "c:int64 d:int64 text:string",
            "schema threads pid:int32 tid:int32 name:string start_ns:int64 exit_ns:int64 creator_tid:int32 refs:int64 "
                + "writes:int64 pages:int64 first_ns:int64 last_ns:int64",
            "schema processes pid:int32 ppid:int32 executable:string start_ns:int64 exit_ns:int64 exit_status:int32 "
                + "threads:int64 refs:int64 writes:int64 pages:int64",
            "schema mappings mapping_id:int32 name:string refs:int64 reads:int64 writes:int64 pages:int64 evictions:int64 "
                + "dirty_evictions:int64",
            "schema stacks pid:int32 stack_id:int32 depth:int32 frames:string names:string",
            "schema moca pid:int32 tid:int32 chunk_id:int64 interval:int64 close_seq:int64 close_ns:int64 seq:int64 "
                + "time_ns:int64 address:int64 page:int64 write:bool reads:int64 writes:int64",
            "schema header key:string value:string"), lines.stream().filter(l -> l.startsWith("schema ")).toList(), python);
        // every table's rows as pyarrow, pandas and polars count them: the same, and refs and evictions dump's
        final List<String> rows = lines.stream().filter(l -> l.startsWith("rows ")).toList();
        assertEquals(9, rows.size(), python);
        for (final String row : rows)
        {
            final String[] f = row.split(" ");
            assertTrue(f[2].equals(f[3]) && f[2].equals(f[4]), "pyarrow, pandas and polars count one table's rows alike: "
                + row);
        }
        assertTrue(rows.contains("rows refs " + refs.size() + " " + refs.size() + " " + refs.size()), python);
        assertTrue(rows.contains("rows evictions " + evictions.size() + " " + evictions.size() + " " + evictions.size()),
            python);

        // sql's threads: info's per-thread references and names (worker-0 to worker-3 among them)
        final Faultline.Result threads = Faultline.run("sql", "--csv", trace.toString(),
            "SELECT tid, refs, writes, name FROM threads WHERE refs > 0 ORDER BY tid");
        assertEquals(0, threads.status(), threads.describe());
        final TreeSet<String> infoThreads = new TreeSet<>();
        final String threadTable = info.out().substring(info.out().indexOf("\ntid "));
        threadTable.lines().skip(2).takeWhile(l -> !l.isBlank()).map(l -> l.trim().split(" +", 6))
            .forEach(f -> infoThreads.add(f[0] + "," + number(f[2]) + "," + number(f[4]) + "," + f[5]));
        assertEquals(infoThreads, new TreeSet<>(threads.out().lines().skip(1).toList()), threads.out() + info.out());
        for (int w = 0; w < 4; w++)
        {
            assertTrue(threads.out().contains(",worker-" + w + "\n"), threads.out());
        }
    }

    /**
     * The driver's setters (-Dfaultline.sql.setters=true), the load's way where the driver has
     * no vector memory to copy into, give the same tables as the copy, the default.
     */
    @Test
    void theSettersAndTheCopyLoadTheSameTables() throws Exception
    {
        final Path trace = tmp.resolve("threads");
        final Faultline.Result rec = Faultline.run("record", "-q", "--evms", "16", "-o", trace.toString(), "--",
            Workloads.build("threads").toString(), "2", "100");
        assertEquals(0, rec.status(), rec.describe());
        final String query = "SELECT * FROM refs; SELECT * FROM evictions; SELECT * FROM threads ORDER BY tid; "
            + "SELECT * FROM mappings;";
        final Faultline.Result copy = Faultline.run("sql", "--csv", trace.toString(), query);
        assertEquals(0, copy.status(), copy.describe());
        final ProcessBuilder builder = Faultline.builder(List.of("sql", "--csv", trace.toString(), query));
        builder.environment().put("FAULTLINE_JAVA_OPTS", "-Dfaultline.sql.setters=true");
        final Faultline.Result setters = Faultline.finish(builder, 120);
        assertEquals(0, setters.status(), setters.describe());
        assertEquals(copy.out(), setters.out());
        assertTrue(copy.out().lines().count() > 400, copy.out());
    }

    private static String number(final String withCommas)
    {
        return withCommas.replace(",", "");
    }

    /** parquet_readback.py's output, after it wrote refs.csv and evictions.csv into {@code out}. */
    private String python(final Path dir, final Path out) throws Exception
    {
        final Path script = tmp.resolve("parquet_readback.py");
        try (InputStream in = getClass().getResourceAsStream("/parquet_readback.py"))
        {
            Files.write(script, in.readAllBytes());
        }
        final Process python;
        try
        {
            python = new ProcessBuilder("python3", script.toString(), dir.toString(), out.toString())
                .redirectErrorStream(true).start();
        }
        catch (final java.io.IOException ex)
        {
            throw new AssertionError("reading Parquet back needs python3 with duckdb and pyarrow: install python3, then "
                + INSTALL + " (" + ex.getMessage() + ")");
        }
        final String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, python.waitFor(), "parquet_readback.py failed (needs " + INSTALL + "):\n" + output);
        return output;
    }
}
