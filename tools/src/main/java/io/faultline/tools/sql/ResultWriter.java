package io.faultline.tools.sql;

import java.io.PrintStream;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * A query's rows on standard output: an aligned table (numbers to the right, NULL for a missing
 * value, as DuckDB's own shell shows them) or CSV (RFC 4180: a header line, quotes where a value
 * holds a comma, a quote or a line break, nothing for NULL). A table's column widths come from
 * its first {@value #WIDTH_ROWS} rows, so that a large result streams instead of waiting in memory;
 * a longer value later just widens its line.
 */
public final class ResultWriter
{
    static final int WIDTH_ROWS = 10_000;
    private static final String NULL = "NULL";

    private ResultWriter()
    {
    }

    /** Writes every row of {@code rows}; returns how many. */
    public static long write(final ResultSet rows, final PrintStream out, final boolean csv) throws SQLException
    {
        final ResultSetMetaData meta = rows.getMetaData();
        final int columns = meta.getColumnCount();
        final boolean[] numeric = new boolean[columns];
        final String[] names = new String[columns];
        for (int c = 0; c < columns; c++)
        {
            names[c] = meta.getColumnLabel(c + 1);
            numeric[c] = isNumeric(meta.getColumnType(c + 1), meta.getColumnTypeName(c + 1));
        }
        if (csv)
        {
            return writeCsv(rows, out, names);
        }
        final List<String[]> first = new ArrayList<>();
        final int[] widths = new int[columns];
        for (int c = 0; c < columns; c++)
        {
            widths[c] = names[c].length();
        }
        boolean more = rows.next();
        while (more && first.size() < WIDTH_ROWS)
        {
            final String[] row = row(rows, columns, NULL);
            for (int c = 0; c < columns; c++)
            {
                widths[c] = Math.max(widths[c], row[c].length());
            }
            first.add(row);
            more = rows.next();
        }
        final StringBuilder line = new StringBuilder(128);
        line(line, names, widths, new boolean[columns]);
        out.append(line).append('\n');
        line.setLength(0);
        for (int c = 0; c < columns; c++)
        {
            line.append(c == 0 ? "" : "  ").append("-".repeat(widths[c]));
        }
        out.append(line).append('\n');
        long count = 0;
        for (final String[] row : first)
        {
            line.setLength(0);
            line(line, row, widths, numeric);
            out.append(line).append('\n');
            count++;
        }
        while (more)
        {
            line.setLength(0);
            line(line, row(rows, columns, NULL), widths, numeric);
            out.append(line).append('\n');
            count++;
            more = rows.next();
        }
        out.printf("(%,d row%s)%n", count, count == 1 ? "" : "s");
        return count;
    }

    private static long writeCsv(final ResultSet rows, final PrintStream out, final String[] names) throws SQLException
    {
        final StringBuilder line = new StringBuilder(128);
        csvLine(line, names);
        out.append(line).append('\n');
        long count = 0;
        while (rows.next())
        {
            line.setLength(0);
            csvLine(line, row(rows, names.length, null));
            out.append(line).append('\n');
            count++;
        }
        return count;
    }

    private static void csvLine(final StringBuilder line, final String[] values)
    {
        for (int c = 0; c < values.length; c++)
        {
            if (c > 0)
            {
                line.append(',');
            }
            final String v = values[c];
            if (v == null)
            {
                continue;
            }
            if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0)
            {
                line.append('"').append(v.replace("\"", "\"\"")).append('"');
            }
            else
            {
                line.append(v);
            }
        }
    }

    private static void line(final StringBuilder line, final String[] values, final int[] widths, final boolean[] right)
    {
        for (int c = 0; c < values.length; c++)
        {
            if (c > 0)
            {
                line.append("  ");
            }
            final String v = values[c];
            final int pad = Math.max(0, widths[c] - v.length());
            if (right[c])
            {
                line.append(" ".repeat(pad)).append(v);
            }
            else
            {
                line.append(v).append(" ".repeat(pad));
            }
        }
        int end = line.length();
        while (end > 0 && line.charAt(end - 1) == ' ')
        {
            end--; // no trailing blanks
        }
        line.setLength(end);
    }

    private static String[] row(final ResultSet rows, final int columns, final String nullText) throws SQLException
    {
        final String[] row = new String[columns];
        for (int c = 0; c < columns; c++)
        {
            final Object value = rows.getObject(c + 1);
            row[c] = value == null ? nullText : text(value);
        }
        return row;
    }

    private static String text(final Object value) throws SQLException
    {
        if (value instanceof java.sql.Array array)
        {
            final Object[] items = (Object[])array.getArray();
            final StringBuilder s = new StringBuilder("[");
            for (int i = 0; i < items.length; i++)
            {
                s.append(i == 0 ? "" : ", ").append(items[i] == null ? NULL : text(items[i]));
            }
            return s.append(']').toString();
        }
        return value.toString();
    }

    /** By JDBC's type, or DuckDB's name for those JDBC has none for (HUGEINT: what sum() of integers gives). */
    private static boolean isNumeric(final int type, final String name)
    {
        return switch (type)
        {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT, Types.FLOAT, Types.REAL, Types.DOUBLE,
                Types.NUMERIC, Types.DECIMAL -> true;
            default -> name != null && name.matches("U?(HUGEINT|BIGINT|INTEGER|SMALLINT|TINYINT)|DECIMAL.*");
        };
    }
}
