package io.faultline.tools.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into its statements at each {@code ;} outside a string ('...'), a quoted name
 * ("..."), a line comment (-- to the line's end) and a block comment: DuckDB's JDBC driver runs
 * every statement of a text it is given and returns only the last one's rows.
 */
public final class Statements
{
    private Statements()
    {
    }

    /** The statements of {@code sql}, each without its {@code ;}, blank ones left out. */
    public static List<String> split(final String sql)
    {
        final List<String> statements = new ArrayList<>();
        int start = 0;
        int i = 0;
        final int n = sql.length();
        while (i < n)
        {
            final char c = sql.charAt(i);
            if (c == '\'' || c == '"')
            {
                i = sql.indexOf(c, i + 1);
                while (i >= 0 && i + 1 < n && sql.charAt(i + 1) == c)
                {
                    i = sql.indexOf(c, i + 2); // a doubled quote stands for itself
                }
                i = i < 0 ? n : i + 1;
            }
            else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-')
            {
                final int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            }
            else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*')
            {
                final int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            }
            else if (c == ';')
            {
                add(statements, sql.substring(start, i));
                start = ++i;
            }
            else
            {
                i++;
            }
        }
        add(statements, sql.substring(start));
        return statements;
    }

    private static void add(final List<String> statements, final String statement)
    {
        if (!statement.isBlank())
        {
            statements.add(statement.strip());
        }
    }
}
