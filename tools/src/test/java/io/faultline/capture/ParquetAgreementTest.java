package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.faultline.tools.sql.TraceTables;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * export --to parquet writes its tables itself, in one pass (ParquetTables), while faultline sql
 * loads them into DuckDB and derives threads, processes and mappings in SQL (TraceTables): on
 * real recordings, every table of the one is the other's, column for column (names and types)
 * and row for row in order. The recordings: a forking, exec'ing pipeline under a 16-page EVMS
 * (several processes merged in seq order, kernel events, exits), two threads on one page, each
 * mapping change, call stacks (record --stacks),
 * and a Moca trace (the moca table). And refs.parquet and evictions.parquet, read with DuckDB's
 * JDBC driver, hold every line of dump --format csv, in order. Two threads that fault on the
 * same page and pages of their own (each thread's distinct pages), and one of each mapping
 * change (a page's mapping after mremap and munmap) check the counts that the export keeps per
 * page.
 */
class ParquetAgreementTest
{
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pipeline", "shared", "mapops", "stacks", "moca"})
    void theExportedTablesAreSqlsTables(final String recording) throws Exception
    {
        final Path trace = tmp.resolve("t");
        final List<String> record = new ArrayList<>(List.of("record", "-q", "-o", trace.toString()));
        switch (recording)
        {
            case "pipeline" -> record.addAll(List.of("--evms", "16", "--", Workloads.build("pipeline").toString(), "2"));
            case "shared" -> record.addAll(List.of("--engine", "mprotect", "--evms", "16", "--",
                Workloads.build("same_address").toString(), "200"));
            case "mapops" -> record.addAll(List.of("--scope", "api", "--evms", "64", "--",
                Workloads.build("mapops").toString()));
            case "stacks" -> record.addAll(List.of("--engine", "mprotect", "--evms", "16", "--stacks", "8", "--",
                Workloads.build("two_callers", "-fno-omit-frame-pointer").toString(), "4"));
            default -> record.addAll(List.of("--mode", "moca", "--interval", "20ms", "--", "sh", "-c",
                "seq 1 20000 | sort -n | uniq -c > /dev/null"));
        }
        final Faultline.Result rec = Faultline.run(record, 300);
        assertEquals(0, rec.status(), rec.describe());
        final Path dir = tmp.resolve("parquet");
        final Faultline.Result export = Faultline.run("export", "--to", "parquet", "-o", dir.toString(), trace.toString());
        assertEquals(0, export.status(), export.describe());

        final StringBuilder queries = new StringBuilder();
        for (final String table : TraceTables.TABLES)
        {
            final String file = "'" + dir.resolve(table + ".parquet") + "'";
            for (final String[] q : new String[][] {{"sql columns", "(DESCRIBE " + table + ")"}, {"sql rows", table},
                {"file columns", "(DESCRIBE SELECT * FROM " + file + ")"}, {"file rows", file}})
            {
                queries.append("SELECT '").append(table).append(' ').append(q[0]).append("' AS marker;\n")
                    .append(q[0].endsWith("columns") ? "SELECT column_name, column_type FROM " : "SELECT * FROM ")
                    .append(q[1]).append(";\n");
            }
        }
        final Faultline.Result sql = Faultline.run("sql", "--csv", trace.toString(), queries.toString());
        assertEquals(0, sql.status(), sql.describe());
        final java.util.Map<String, String> parts = split(sql.out());
        assertEquals(4 * TraceTables.TABLES.size(), parts.size(), parts.keySet().toString());
        for (final String table : TraceTables.TABLES)
        {
            assertEquals(parts.get(table + " sql columns"), parts.get(table + " file columns"), table + "'s columns");
            assertEquals(parts.get(table + " sql rows"), parts.get(table + " file rows"), table + "'s rows");
        }
        switch (recording)
        {
            case "pipeline" -> {
                // the main process and three children a round (a header line before the rows)
                assertTrue(parts.get("processes file rows").lines().count() > 7, parts.get("processes file rows"));
                assertTrue(parts.get("events file rows").contains(",exec,"), parts.get("processes file rows"));
                assertTrue(parts.get("evictions file rows").lines().count() > 16, parts.get("threads file rows"));
            }
            case "shared" -> assertTrue(parts.get("threads file rows").lines().count() >= 3, parts.get("threads file rows"));
            case "mapops" -> assertTrue(parts.get("events file rows").contains(",mremap,"), parts.get("events file rows"));
            case "stacks" -> {
                final String stacks = parts.get("stacks file rows");
                assertTrue(stacks.lines().count() > 2, stacks);
                // named as report callsites names them: each function innermost first, then its caller
                assertTrue(stacks.contains(",touch_a;main") && stacks.contains(",touch_b;main"), stacks);
            }
            default -> assertTrue(parts.get("moca file rows").lines().count() > 100, parts.get("threads file rows"));
        }

        if (!recording.equals("moca"))
        {
            final Faultline.Result dump = Faultline.run("dump", "--format", "csv", trace.toString());
            assertEquals(0, dump.status(), dump.describe());
            final List<String> refs = new ArrayList<>();
            final List<String> evictions = new ArrayList<>();
            dump.out().lines().skip(1).filter(l -> l.contains(",r,") || l.contains(",w,") || l.contains(",evict,"))
                .forEach(line -> (line.contains(",evict,") ? evictions : refs).add(line));
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement())
            {
                assertEquals(refs, lines(s, "SELECT seq || ',' || time_ns || ',' || pid || ',' || tid || ',' || "
                    + "CASE WHEN write THEN 'w' ELSE 'r' END || ',0x' || lower(hex(address)) || ',' || "
                    + "CASE WHEN kernel THEN 'k' ELSE '' END FROM '" + dir.resolve("refs.parquet") + "'"));
                assertEquals(evictions, lines(s, "SELECT seq || ',' || time_ns || ',' || pid || ',' || tid || ',evict,0x' "
                    + "|| lower(hex(address)) || ',' || tag FROM '" + dir.resolve("evictions.parquet") + "'"));
                assertTrue(refs.size() > 10 && (evictions.size() > 0 || recording.equals("mapops")),
                    dump.out().substring(0, Math.min(2000, dump.out().length())));
            }
        }
    }

    /** Each statement's output by the marker the statement before it selected. */
    private static java.util.Map<String, String> split(final String out)
    {
        final java.util.Map<String, String> parts = new java.util.LinkedHashMap<>();
        final List<String> lines = out.lines().toList();
        String name = null;
        StringBuilder part = null;
        for (int i = 0; i < lines.size(); i++)
        {
            if (lines.get(i).equals("marker") && i + 1 < lines.size())
            {
                if (name != null)
                {
                    parts.put(name, part.toString());
                }
                name = lines.get(++i);
                part = new StringBuilder();
                continue;
            }
            part.append(lines.get(i)).append('\n');
        }
        if (name != null)
        {
            parts.put(name, part.toString());
        }
        return parts;
    }

    private static List<String> lines(final Statement s, final String query) throws Exception
    {
        final List<String> out = new ArrayList<>();
        try (ResultSet r = s.executeQuery(query))
        {
            while (r.next())
            {
                out.add(r.getString(1));
            }
        }
        return out;
    }
}
