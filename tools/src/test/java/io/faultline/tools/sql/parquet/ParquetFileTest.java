package io.faultline.tools.sql.parquet;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.faultline.tools.sql.parquet.ParquetFile.Column;
import io.faultline.tools.sql.parquet.ParquetFile.Rows;
import io.faultline.tools.sql.parquet.ParquetFile.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Parquet writer read back by DuckDB (an independent reader, through its JDBC driver), value
 * for value: integers at the ends of their ranges and differences that wrap around (DELTA_BINARY_PACKED),
 * every pattern of nulls (one run, runs, alternating: the definition levels' hybrid), strings with
 * multi-byte characters and empty ones, a dictionary column, row groups of 1, 127, 128, 129 and
 * 5,000 rows and a file of none; and the footer's types, codec and per-row-group min and max.
 */
class ParquetFileTest
{
    private static final List<Column> COLUMNS = List.of(new Column("big", Type.INT64), new Column("small", Type.INT32),
        new Column("flag", Type.BOOLEAN), new Column("text", Type.STRING),
        new Column("tag", Type.STRING, new String[] {"r", "w", "R", "W"}), new Column("sparse", Type.INT64));

    @TempDir
    Path tmp;

    @Test
    void duckDbReadsBackEveryValueWritten() throws Exception
    {
        final Path file = tmp.resolve("t.parquet");
        final SplittableRandom random = new SplittableRandom(44);
        final List<String> expected = new ArrayList<>();
        final List<String> groupStats = new ArrayList<>();
        long row = 0;
        try (ParquetFile parquet = new ParquetFile(file, COLUMNS))
        {
            for (final int size : new int[] {1, 127, 128, 129, 5000})
            {
                final Rows rows = new Rows(COLUMNS, size);
                long lo = Long.MAX_VALUE;
                long hi = Long.MIN_VALUE;
                for (int i = 0; i < size; i++, row++)
                {
                    final long big = switch ((int)(row % 5))
                    {
                        case 0 -> Long.MIN_VALUE + row;
                        case 1 -> Long.MAX_VALUE - row;
                        case 2 -> random.nextLong();
                        case 3 -> row * 4096;
                        default -> -row;
                    };
                    final int small = switch ((int)(row % 4))
                    {
                        case 0 -> Integer.MIN_VALUE;
                        case 1 -> Integer.MAX_VALUE;
                        case 2 -> random.nextInt();
                        default -> (int)row;
                    };
                    final boolean flag = row % 3 == 0 || random.nextInt(4) == 0;
                    final String text = row % 7 == 0 ? "" : "é" + row + (row % 11 == 0 ? "👍,\"x\"" : "");
                    final int tag = random.nextInt(4);
                    // nulls: none in the first groups' first half, alternating, then runs
                    final boolean sparseNull = size == 5000 ? (i / 37) % 2 == 0 : size == 129 ? i % 2 == 0 : size == 1;
                    rows.longs[0][i] = big;
                    rows.longs[1][i] = small;
                    rows.longs[2][i] = flag ? 1 : 0;
                    rows.strings[3][i] = text;
                    rows.longs[4][i] = tag;
                    rows.longs[5][i] = row * row;
                    if (sparseNull)
                    {
                        rows.nulls(5)[i] = true;
                    }
                    else if (rows.nulls[5] != null)
                    {
                        rows.nulls[5][i] = false;
                    }
                    lo = Math.min(lo, big);
                    hi = Math.max(hi, big);
                    expected.add(big + "|" + small + "|" + flag + "|" + text + "|" + "rwRW".charAt(tag) + "|"
                        + (sparseNull ? "null" : String.valueOf(row * row)));
                }
                rows.rows = size;
                parquet.write(rows);
                groupStats.add(lo + "|" + hi);
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement())
        {
            final List<String> read = new ArrayList<>();
            try (ResultSet r = s.executeQuery("SELECT * FROM '" + file + "'"))
            {
                while (r.next())
                {
                    final long sparse = r.getLong(6);
                    read.add(r.getLong(1) + "|" + r.getInt(2) + "|" + r.getBoolean(3) + "|" + r.getString(4) + "|"
                        + r.getString(5) + "|" + (r.wasNull() || r.getObject(6) == null ? "null" : String.valueOf(sparse)));
                }
            }
            assertEquals(expected, read);
            assertEquals(List.of("big BIGINT", "small INTEGER", "flag BOOLEAN", "text VARCHAR", "tag VARCHAR",
                "sparse BIGINT"), rows(s, "SELECT column_name || ' ' || column_type FROM (DESCRIBE SELECT * FROM '" + file
                + "')"));
            assertEquals(List.of("ZSTD"), rows(s, "SELECT DISTINCT compression FROM parquet_metadata('" + file + "')"));
            assertEquals(groupStats, rows(s, "SELECT stats_min || '|' || stats_max FROM parquet_metadata('" + file
                + "') WHERE path_in_schema = 'big' ORDER BY row_group_id"));
            assertEquals(List.of("5385"), rows(s, "SELECT count(*) FROM '" + file + "' WHERE sparse IS NOT NULL OR true"));
        }
    }

    @Test
    void aFileOfNoRowsReadsAsAnEmptyTableOfItsColumns() throws Exception
    {
        final Path file = tmp.resolve("empty.parquet");
        new ParquetFile(file, COLUMNS).close();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement())
        {
            assertEquals(List.of("0"), rows(s, "SELECT count(*) FROM '" + file + "'"));
            assertEquals(List.of("big", "small", "flag", "text", "tag", "sparse"),
                rows(s, "SELECT column_name FROM (DESCRIBE SELECT * FROM '" + file + "')"));
        }
    }

    private static List<String> rows(final Statement s, final String query) throws Exception
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
