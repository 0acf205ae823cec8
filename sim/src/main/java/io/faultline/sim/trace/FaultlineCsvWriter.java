package io.faultline.sim.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;

/**
 * A faultline trace's references and eviction records as CSV, the columns of
 * {@code faultline dump --format csv}: {@value #HEADER}. A reference record has kind r or w and
 * an empty tag; an eviction record has kind {@value #EVICT} and tag r, w, R or W (FORMAT.md,
 * "EVMS"); the address is hexadecimal with 0x. Read back by {@link FaultlineCsvTraceFormat}.
 */
public final class FaultlineCsvWriter implements ExportFormat
{
    public static final String HEADER = "seq,time_ns,pid,tid,kind,address,tag";
    public static final String EVICT = "evict";

    @Override
    public String name()
    {
        return "csv";
    }

    @Override
    public String summary()
    {
        return "CSV, the columns of faultline dump --format csv: " + HEADER + " (kind evict: an eviction record)";
    }

    /** One reference's fields up to the address, separated by {@code separator} (dump's text format uses a space); CSV adds an empty tag. */
    public static StringBuilder append(final StringBuilder line, final char separator, final long seq, final long timeNs,
        final int pid, final int tid, final long address, final boolean write)
    {
        return line.append(seq).append(separator).append(timeNs).append(separator).append(pid).append(separator)
            .append(tid).append(separator).append(write ? 'w' : 'r').append(separator).append("0x")
            .append(Long.toHexString(address));
    }

    /** One eviction record's fields: kind {@value #EVICT}, then the page's address and its tag. */
    public static StringBuilder appendEviction(final StringBuilder line, final char separator, final long seq,
        final long timeNs, final int pid, final int tid, final long address, final char tag)
    {
        return line.append(seq).append(separator).append(timeNs).append(separator).append(pid).append(separator)
            .append(tid).append(separator).append(EVICT).append(separator).append("0x")
            .append(Long.toHexString(address)).append(separator).append(tag);
    }

    @Override
    public ExportFormat.Writer open(final OutputStream out, final int pageSize) throws IOException
    {
        final java.io.Writer text = new OutputStreamWriter(out, StandardCharsets.US_ASCII);
        text.append(HEADER).append('\n');
        final StringBuilder line = new StringBuilder(64);
        return new ExportFormat.Writer()
        {
            @Override
            public void reference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write) throws IOException
            {
                line.setLength(0);
                text.append(append(line, ',', seq, timeNs, pid, tid, address, write).append(",\n"));
            }

            @Override
            public void eviction(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final char tag) throws IOException
            {
                line.setLength(0);
                text.append(appendEviction(line, ',', seq, timeNs, pid, tid, address, tag).append('\n'));
            }

            @Override
            public void finish() throws IOException
            {
                text.flush();
            }
        };
    }
}
