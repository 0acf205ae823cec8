package io.faultline.sim.report;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The simulation results as an aligned table for people: counts with thousands separators (CSV keeps them raw). */
public final class ConsoleTable
{
    private static final String[] HEADER = {"trace", "policy", "size", "requests", "misses", "miss ratio"};

    private ConsoleTable()
    {
    }

    public static void print(final List<SimulationRow> rows, final PrintStream out)
    {
        final String[][] cells = new String[rows.size() + 1][];
        cells[0] = HEADER;
        for (int i = 0; i < rows.size(); i++)
        {
            final SimulationRow row = rows.get(i);
            cells[i + 1] = new String[] {
                row.trace(),
                row.policy(),
                String.format(Locale.ROOT, "%,d", row.size()),
                String.format(Locale.ROOT, "%,d", row.requests()),
                String.format(Locale.ROOT, "%,d", row.misses()),
                String.format(Locale.ROOT, "%.6f", row.missRatio())};
        }
        final int[] widths = new int[HEADER.length];
        for (final String[] line : cells)
        {
            for (int c = 0; c < line.length; c++)
            {
                widths[c] = Math.max(widths[c], line[c].length());
            }
        }
        for (final String[] line : cells)
        {
            final StringBuilder sb = new StringBuilder();
            for (int c = 0; c < line.length; c++)
            {
                if (c > 0)
                {
                    sb.append("  ");
                }
                // Text columns left-aligned, numbers right-aligned.
                final String format = c < 2 ? "%-" + widths[c] + "s" : "%" + widths[c] + "s";
                sb.append(String.format(Locale.ROOT, format, line[c]));
            }
            out.println(sb.toString().stripTrailing());
        }
    }
}
