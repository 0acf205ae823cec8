package io.faultline.format;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** FORMAT.md names the format version this code writes and the versions its reader accepts. */
class FormatDocumentTest
{
    @Test
    void formatMdGivesTheCodesVersions() throws IOException
    {
        final String doc = Files.readString(Path.of("FORMAT.md"));
        assertTrue(doc.startsWith("# faultline trace format, version " + TraceLayout.FORMAT_VERSION + "\n"),
            "FORMAT.md's title names version " + TraceLayout.FORMAT_VERSION);
        final StringBuilder accepted = new StringBuilder();
        for (int v = TraceLayout.MIN_FORMAT_VERSION; v <= TraceLayout.FORMAT_VERSION; v++)
        {
            accepted.append(accepted.length() == 0 ? "" : v == TraceLayout.FORMAT_VERSION ? " or " : ", ").append(v);
        }
        assertTrue(doc.contains("`format_version` is " + accepted + ";"),
            "FORMAT.md's reader checks accept format_version " + accepted);
    }

    /** Each event type the code knows has its row in FORMAT.md's table of events, under its code and name. */
    @Test
    void formatMdHasARowPerEventType() throws IOException
    {
        final String doc = Files.readString(Path.of("FORMAT.md"));
        for (final EventType type : EventType.values())
        {
            final String row = "\n| " + type.code() + " | " + type.label() + " | ";
            assertTrue(doc.contains(row), "FORMAT.md has no event table row starting " + row.strip() + " for " + type);
        }
    }
}
