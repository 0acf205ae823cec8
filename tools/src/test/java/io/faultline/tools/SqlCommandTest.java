package io.faultline.tools;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.faultline.tools.sql.TraceTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * faultline sql (issue 44) over {@link SqlTestTrace}, whose every row is known: each table's rows
 * exactly, times from the program's start, mapping names as info gives them, one schema per
 * trace, the table and CSV outputs, a query's result as Parquet, statements from standard input,
 * and errors in one line (a bad query: the engine's message, exit 2; a bad trace: the reader's).
 */
class SqlCommandTest
{
    @TempDir
    Path tmp;

    private Path trace() throws Exception
    {
        return SqlTestTrace.write(tmp.resolve("t"));
    }

    private CommandRun csv(final Path trace, final String query)
    {
        final CommandRun run = CommandRun.of("sql", "--csv", trace.toString(), query);
        assertEquals(0, run.status(), run.toString());
        assertEquals("", run.err(), run.toString());
        return run;
    }

    @Test
    void everyTableHoldsTheTracesRowsWithTimesFromTheProgramsStart() throws Exception
    {
        final Path t = trace();
        assertEquals("""
            seq,time_ns,pid,tid,address,page,write,kernel,stack_id,mapping_id
            0,0,100,100,65536,16,false,false,,0
            1,10,100,100,69632,17,true,false,,0
            2,20,100,100,1879048192,458752,false,false,,1
            3,30,100,100,65544,16,false,true,,0
            4,40,100,101,73728,18,true,false,7,0
            5,50,100,101,1879052288,458753,false,false,,1
            """, csv(t, "SELECT * FROM refs ORDER BY seq").out());
        assertEquals("""
            seq,time_ns,pid,tid,address,page,tag,dirty,referenced,deleted,mapping_id
            6,60,100,100,69632,17,W,true,true,false,0
            6,60,100,100,1879048192,458752,r,false,false,true,1
            """, csv(t, "SELECT * FROM evictions ORDER BY address").out());
        assertEquals("""
            seq,time_ns,pid,tid,type,code,kernel,a,b,c,d,text
            0,0,100,100,process-start,1,false,1,0,0,0,/bin/prog
            0,0,100,100,thread-name,5,false,0,0,0,0,prog
            0,0,100,100,trace-range,6,false,65536,16384,0,0,[heap]
            0,0,100,100,trace-range,6,false,1879048192,8192,0,0,/usr/lib/libfoo.so
            4,35,100,101,thread-start,3,false,100,0,0,0,
            4,35,100,101,thread-name,5,false,0,0,0,0,prog
            4,35,100,101,thread-name,5,false,0,0,0,0,worker
            6,70,100,100,process-exit,2,false,0,0,0,0,
            """, csv(t, "SELECT * FROM events").out());
        assertEquals("""
            pid,tid,name,start_ns,exit_ns,creator_tid,refs,writes,pages,first_ns,last_ns
            100,100,prog,0,70,,4,1,3,0,30
            100,101,worker,35,,100,2,1,2,40,50
            """, csv(t, "SELECT * FROM threads").out());
        assertEquals("""
            pid,ppid,executable,start_ns,exit_ns,exit_status,threads,refs,writes,pages
            100,1,/bin/prog,0,70,0,2,6,2,5
            """, csv(t, "SELECT * FROM processes").out());
        // the names dump and info give: a file's base name
        assertEquals("""
            mapping_id,name,refs,reads,writes,pages,evictions,dirty_evictions
            0,[heap],4,2,2,3,1,1
            1,libfoo.so,2,2,0,2,1,0
            """, csv(t, "SELECT * FROM mappings").out());
        assertEquals("key,value\nreferences,6\nprogram_start_ns,1000\n",
            csv(t, "SELECT * FROM header WHERE key IN ('references', 'program_start_ns')").out());
        for (final String table : TraceTables.TABLES)
        {
            assertTrue(csv(t, "SELECT count(*) FROM t1." + table).out().startsWith("count_star()\n"), table);
        }
    }

    @Test
    void aResultIsAnAlignedTableNumbersToTheRight() throws Exception
    {
        final CommandRun run = CommandRun.of("sql", trace().toString(),
            "SELECT m.name AS mapping, count(*) AS refs, max(r.stack_id) AS stack, sum(r.seq) AS seqs FROM refs r "
                + "JOIN mappings m USING (mapping_id) GROUP BY ALL ORDER BY refs DESC");
        assertEquals(0, run.status(), run.toString());
        // sum() of BIGINTs is DuckDB's HUGEINT, a number too
        assertEquals("""
            mapping    refs  stack  seqs
            ---------  ----  -----  ----
            [heap]        4      7     8
            libfoo.so     2   NULL     7
            (2 rows)
            """, run.out());
    }

    @Test
    void aQueryOfSeveralStatementsPrintsEachOnesRows() throws Exception
    {
        final Path t = trace();
        // a ; in a string, a quoted name or a comment splits nothing
        assertEquals("n\n6\nb;\nx;y'\nlast\n6\n", csv(t, "SELECT count(*) AS n FROM refs; SELECT 'x;y''' AS \"b;\" -- ;\n"
            + "; /* ; */ SELECT max(seq) AS last FROM evictions;").out());
        final CommandRun two = CommandRun.of("sql", "--parquet", tmp.resolve("two.parquet").toString(), t.toString(),
            "SELECT 1 AS one; SELECT 2 AS two");
        assertEquals(2, two.status(), two.toString());
        assertEquals("faultline sql: --parquet writes one query's result: give one statement, not 2\n", two.err());
    }

    @Test
    void severalTracesHaveASchemaEachTheFirstUnqualified() throws Exception
    {
        final Path a = trace();
        final Path b = SqlTestTrace.write(tmp.resolve("b"));
        final CommandRun run = CommandRun.of("sql", "--csv", a.toString(), b.toString(),
            "SELECT schema, trace, refs, evictions, (SELECT count(*) FROM refs) AS unqualified FROM main.traces");
        assertEquals(0, run.status(), run.toString());
        assertEquals("schema,trace,refs,evictions,unqualified\nt1," + a + ",6,2,6\nt2," + b + ",6,2,6\n", run.out());
        final CommandRun join = CommandRun.of("sql", "--csv", a.toString(), b.toString(),
            "SELECT count(*) AS same FROM t1.refs JOIN t2.refs USING (seq, address)");
        assertEquals("same\n6\n", join.out(), join.toString());
    }

    @Test
    void aBadQueryIsTheEnginesMessageInOneLineExit2() throws Exception
    {
        final Path t = trace();
        final CommandRun syntax = CommandRun.of("sql", t.toString(), "SELEC 1 FROM refs");
        assertEquals(2, syntax.status(), syntax.toString());
        assertEquals("", syntax.out());
        assertEquals("faultline sql: Parser Error: syntax error at or near \"SELEC\"\n", syntax.err());
        final CommandRun table = CommandRun.of("sql", t.toString(), "SELECT * FROM refz");
        assertEquals(2, table.status(), table.toString());
        assertEquals(1, table.errLines().length, table.toString());
        assertTrue(table.err().startsWith("faultline sql: Catalog Error: Table with name refz does not exist!"),
            table.toString());
    }

    /**
     * The engine failing while it loads a trace is no query's fault, so not exit 2: out of memory is
     * a limit (5), its files it cannot write are access (3), anything else a bug (70). DuckDB's
     * messages start with the error's type, as these do (its own wording of each).
     */
    @Test
    void anEngineErrorWhileLoadingSaysWhatKind()
    {
        final CliException memory = SqlCommand.loadFailed("/tmp/t", new java.sql.SQLException(
            "Out of Memory Error: failed to allocate data of size 16.0 MiB (1.4 GiB/1.5 GiB used)"));
        assertEquals(5, memory.exitCode());
        assertTrue(memory.getMessage().startsWith("cannot load /tmp/t: the SQL engine ran out of memory (Out of Memory"),
            memory.getMessage());
        final CliException files = SqlCommand.loadFailed("/tmp/t", new java.sql.SQLException(
            "IO Error: Could not write file \"/tmp/duckdb.tmp/duckdb_temp_storage-0.tmp\": No space left on device"));
        assertEquals(3, files.exitCode());
        assertTrue(files.getMessage().contains("temporary directory"), files.getMessage());
        final CliException other = SqlCommand.loadFailed("/tmp/t", new java.sql.SQLException(
            "INTERNAL Error: Attempted to access index 3 within vector of size 3\n\nStack Trace:\n#0 ..."));
        assertEquals(70, other.exitCode());
        assertEquals("internal error (the SQL engine failed to load /tmp/t: INTERNAL Error: Attempted to access index 3"
            + " within vector of size 3); this is a bug in faultline or its SQL engine", other.getMessage());
    }

    @Test
    void aBadTraceGivesTheReadersError() throws Exception
    {
        final Path none = tmp.resolve("none");
        final CommandRun sql = CommandRun.of("sql", none.toString(), "SELECT 1 AS one");
        final CommandRun info = CommandRun.of("info", none.toString());
        assertEquals(info.status(), sql.status(), sql.toString());
        assertEquals(info.err().replace("faultline info:", "faultline sql:"), sql.err());
        final Path file = Files.writeString(tmp.resolve("file.txt"), "not a trace");
        final CommandRun notTrace = CommandRun.of("sql", file.toString(), "SELECT 1 AS one");
        assertEquals(1, notTrace.errLines().length, notTrace.toString());
        assertTrue(notTrace.err().startsWith("faultline sql: no trace at " + file + ": it is a file"), notTrace.toString());
    }

    @Test
    void anotherPlatformIsOneLineNotDuckDBsStackTrace() throws Exception
    {
        final Path t = trace();
        final String arch = System.getProperty("os.arch");
        System.setProperty("os.arch", "aarch64");
        final CommandRun run;
        try
        {
            run = CommandRun.of("sql", t.toString(), "SELECT 1 AS one");
        }
        finally
        {
            System.setProperty("os.arch", arch);
        }
        assertEquals(2, run.status(), run.toString());
        assertEquals("", run.out());
        assertEquals("faultline sql: DuckDB's native engine does not load here (" + System.getProperty("os.name")
            + " aarch64: no engine for this platform); faultline carries it for x86-64 Linux only\n", run.err());
    }

    @Test
    void optionsThatContradictAreRefused() throws Exception
    {
        final Path t = trace();
        final CommandRun both = CommandRun.of("sql", "--csv", "--parquet", tmp.resolve("x.parquet").toString(),
            t.toString(), "SELECT 1 AS one");
        assertEquals(2, both.status());
        assertEquals("faultline sql: --csv and --parquet both choose the output; give one\n", both.err());
        final CommandRun noQuery = CommandRun.of("sql", "--parquet", tmp.resolve("x.parquet").toString(), t.toString());
        assertEquals(2, noQuery.status());
        assertEquals("faultline sql: --parquet writes one query's result: give the query after the traces\n",
            noQuery.err());
        final CommandRun none = CommandRun.of("sql");
        assertEquals(2, none.status());
        assertEquals("faultline sql: missing trace directory; usage: " + SqlCommand.USAGE_LINE + "\n", none.err());
    }

    @Test
    void aQuerysResultAsParquetReadsBackTheSame() throws Exception
    {
        final Path t = trace();
        final Path file = tmp.resolve("writes.parquet");
        final CommandRun run = CommandRun.of("sql", "--parquet", file.toString(), t.toString(),
            "SELECT seq, tid, address FROM refs WHERE write ORDER BY seq;");
        assertEquals(0, run.status(), run.toString());
        assertEquals("", run.out());
        assertTrue(run.err().startsWith("Wrote the query's result as Parquet to " + file), run.toString());
        assertEquals("seq,tid,address\n1,100,69632\n4,101,73728\n", csv(t, "SELECT * FROM '" + file + "'").out());
        // zstd, as the export's files
        assertEquals("codec\nZSTD\n", csv(t, "SELECT DISTINCT compression AS codec FROM parquet_metadata('" + file + "')")
            .out());
    }

    @Test
    void withoutAQueryStatementsComeFromStandardInput() throws Exception
    {
        final Path t = trace();
        final CommandRun two = withInput("SELECT count(*) AS n\n  FROM refs;\nSELECT max(seq) AS last FROM evictions;\n",
            "sql", "--csv", t.toString());
        assertEquals(0, two.status(), two.toString());
        assertEquals("n\n6\nlast\n6\n", two.out());
        // the last statement may lack its semicolon
        assertEquals("n\n2\n", withInput("SELECT count(*) AS n FROM evictions", "sql", "--csv", t.toString()).out());
        // from a pipe, the first failure ends the script with exit 2
        final CommandRun failing = withInput("SELECT 1 AS one;\nSELECT * FROM nowhere;\nSELECT 3 AS three;\n", "sql", "--csv",
            t.toString());
        assertEquals(2, failing.status(), failing.toString());
        assertEquals("one\n1\n", failing.out());
        assertEquals(1, failing.errLines().length, failing.toString());
        assertTrue(failing.err().startsWith("faultline sql: Catalog Error: Table with name nowhere does not exist!"),
            failing.toString());
        // a single operand is a trace, even one whose name has no slash
        assertEquals("one\n1\n", withInput("SELECT 1 AS one;", "sql", "--csv", t.toString()).out());
    }

    @Test
    void exportToParquetWritesEveryTableAsTheSqlCommandHasIt() throws Exception
    {
        final Path t = trace();
        final Path dir = tmp.resolve("pq");
        final CommandRun run = CommandRun.of("export", "--to", "parquet", "-o", dir.toString(), t.toString());
        assertEquals(0, run.status(), run.toString());
        assertTrue(run.err().startsWith("Wrote 6 references, 2 evictions and 8 other events as 9 Parquet tables (zstd) to "
            + dir + " in "), run.toString());
        try (var files = Files.list(dir))
        {
            assertEquals(TraceTables.TABLES.stream().map(n -> n + ".parquet").sorted().toList(),
                files.map(f -> f.getFileName().toString()).sorted().toList());
        }
        for (final String table : TraceTables.TABLES)
        {
            // the same columns, of the same types, and the same rows in the same order
            final String file = "'" + dir.resolve(table + ".parquet") + "'";
            assertEquals(csv(t, "SELECT column_name, column_type FROM (DESCRIBE " + table + ")").out(),
                csv(t, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " + file + ")").out(), table);
            assertEquals(csv(t, "SELECT * FROM " + table).out(), csv(t, "SELECT * FROM " + file).out(), table);
        }
        assertEquals("tid,name,refs,pages,first_ns,last_ns\n100,prog,4,3,0,30\n101,worker,2,2,40,50\n",
            csv(t, "SELECT tid, name, refs, pages, first_ns, last_ns FROM '" + dir.resolve("threads.parquet") + "'").out());
        final CommandRun again = CommandRun.of("export", "--to", "parquet", "-o", dir.toString(), t.toString());
        assertEquals(2, again.status(), again.toString());
        assertEquals("faultline export: -o " + dir + " is not a new or empty directory; give one for the Parquet files\n",
            again.err());
        final CommandRun noDir = CommandRun.of("export", "--to", "parquet", t.toString());
        assertEquals("faultline export: --to parquet writes one file per table: give -o DIR, a new or empty directory\n",
            noDir.err());
        final CommandRun filtered = CommandRun.of("export", "--to", "parquet", "--pid", "100", "-o",
            tmp.resolve("p2").toString(), t.toString());
        assertEquals(2, filtered.status());
        assertEquals("faultline export: --to parquet writes every table whole: leave out --pid, --tid, --sample and "
            + "--aggr, and filter in SQL (WHERE pid = N)\n", filtered.err());
    }

    private static CommandRun withInput(final String input, final String... args)
    {
        final InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
        try
        {
            return CommandRun.of(args);
        }
        finally
        {
            System.setIn(saved);
        }
    }
}
