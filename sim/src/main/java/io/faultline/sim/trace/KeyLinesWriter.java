package io.faultline.sim.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;

/**
 * One key (page number) per line, in decimal: both the LIRS block traces ({@link LirsTraceFormat})
 * and libCacheSim's plain text traces ({@link LibCacheSimTextFormat}, {@code cachesim FILE txt
 * ...}) are this when every object is a page, so one writer serves both names.
 */
final class KeyLinesWriter implements ExportFormat
{
    private final String name;
    private final String summary;

    private KeyLinesWriter(final String name, final String summary)
    {
        this.name = name;
        this.summary = summary;
    }

    static KeyLinesWriter lirs()
    {
        return new KeyLinesWriter("lirs", "LIRS block trace: one page number per line");
    }

    static KeyLinesWriter libCacheSimText()
    {
        return new KeyLinesWriter("lcs-txt", "libCacheSim text trace: one page number per line (cachesim FILE txt)");
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public String summary()
    {
        return summary;
    }

    @Override
    public ExportFormat.Writer open(final OutputStream out, final int pageSize)
    {
        final java.io.Writer text = new OutputStreamWriter(out, StandardCharsets.US_ASCII);
        final StringBuilder line = new StringBuilder(24);
        return new ExportFormat.Writer()
        {
            @Override
            public void reference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write) throws IOException
            {
                line.setLength(0);
                line.append(PageKey.of(pid, address, pageSize)).append('\n');
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
