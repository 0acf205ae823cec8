package io.faultline.sim.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;

/**
 * kVMTrace's reduced trace as text (Kaplan, Smaragdakis and Wilson, ACM TOMACS 13(1), 2003;
 * kVMTrace's tag, time, context, virtual page): one eviction record per line, in the order the
 * agent emitted them, {@code TAG TIME_NS PID VPAGE} with the tag r, w, R or W (trace-format/
 * FORMAT.md, "EVMS"), the recording's time in nanoseconds, the process as the context, and the
 * virtual page number in hexadecimal. Reference records are left out. Read back by
 * {@link KvmTraceFormat}.
 */
final class KvmTraceWriter implements ExportFormat
{
    @Override
    public String name()
    {
        return KvmTraceFormat.NAME;
    }

    @Override
    public String summary()
    {
        return "kVMTrace reduced trace: TAG TIME_NS PID VPAGE per eviction record, in eviction order";
    }

    @Override
    public ExportFormat.Writer open(final OutputStream out, final int pageSize)
    {
        final java.io.Writer text = new OutputStreamWriter(out, StandardCharsets.US_ASCII);
        final StringBuilder line = new StringBuilder(40);
        return new ExportFormat.Writer()
        {
            @Override
            public void reference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write)
            {
            }

            @Override
            public void eviction(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final char tag) throws IOException
            {
                line.setLength(0);
                line.append(tag).append(' ').append(timeNs).append(' ').append(pid).append(" 0x")
                    .append(Long.toHexString(Long.divideUnsigned(address, pageSize))).append('\n');
                text.append(line);
            }

            @Override
            public void finish() throws IOException
            {
                text.flush();
            }
        };
    }
}
