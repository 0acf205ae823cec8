package io.faultline.capture;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code faultline sql TRACE} on a terminal: a line editor. The session runs in a pseudo-terminal
 * ({@code script}, util-linux), keys typed as a terminal sends them: the up arrow (in the keypad
 * mode the editor sets, ESC O A) brings the last statement back, Ctrl-C drops the statement being
 * typed and the session goes on, and the statements are kept in {@code $HOME/.faultline_sql_history}.
 */
class SqlPromptTest
{
    @TempDir
    Path tmp;

    @Test
    void theUpArrowRecallsCtrlCDropsAndTheHistoryStays() throws Exception
    {
        final Path trace = tmp.resolve("t");
        final Faultline.Result rec = Faultline.run("record", "-q", "-o", trace.toString(), "--", "true");
        assertEquals(0, rec.status(), rec.describe());
        final Path home = Files.createDirectory(tmp.resolve("home"));
        final ProcessBuilder builder = Faultline.builder(List.of()).command("script", "-qfec",
            "stty cols 100 rows 30; exec " + Faultline.ROOT.resolve("faultline") + " sql " + trace, "/dev/null");
        builder.environment().put("HOME", home.toString());
        builder.environment().put("TERM", "xterm-256color");
        builder.redirectErrorStream(true);
        final Process session = builder.start();
        final ByteArrayOutputStream seen = new ByteArrayOutputStream();
        final Thread reader = new Thread(() ->
        {
            try (InputStream in = session.getInputStream())
            {
                in.transferTo(seen);
            }
            catch (final java.io.IOException ex)
            {
                // the session ended
            }
        });
        reader.start();
        // each line is typed once the editor reads again (it turns bracketed paste on each time):
        // between two reads the terminal is not raw, and a Ctrl-C there would be a SIGINT
        try (OutputStream keys = session.getOutputStream())
        {
            type(keys, seen, 1, "SELECT 41 + 1 AS answer;\r");
            type(keys, seen, 2, "\033OA\r");                   // up arrow: the same statement again
            type(keys, seen, 3, "SELECT nothing_at_all\003");   // Ctrl-C before its end
            type(keys, seen, 4, "SELECT 7 AS seven;\r");
            type(keys, seen, 5, ".quit\r");
        }
        assertTrue(session.waitFor(60, TimeUnit.SECONDS), text(seen));
        reader.join(10_000);
        final String out = text(seen);
        assertEquals(0, session.exitValue(), out);
        assertEquals(3, count(out, "(1 row)"), out);
        assertEquals(2, count(out, "    42\r\n"), out);
        assertTrue(out.contains("seven") && !out.contains("Error"), out);
        final String history = Files.readString(home.resolve(".faultline_sql_history"));
        assertTrue(history.contains("SELECT 41 + 1 AS answer;") && history.contains("SELECT 7 AS seven;"), history);
        assertFalse(history.contains("nothing_at_all"), history);
    }

    private static final String READING = "\033[?2004h";

    /** Waits until the editor has begun its {@code read}th read, then types {@code keys}. */
    private static void type(final OutputStream keys, final ByteArrayOutputStream seen, final int read, final String keysText)
        throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (count(text(seen), READING) < read)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("waited for read " + read + ":\n" + text(seen));
            }
            Thread.sleep(20);
        }
        keys.write(keysText.getBytes(StandardCharsets.UTF_8));
        keys.flush();
    }

    private static int count(final String text, final String what)
    {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length()))
        {
            n++;
        }
        return n;
    }

    private static String text(final ByteArrayOutputStream seen)
    {
        synchronized (seen)
        {
            return seen.toString(StandardCharsets.UTF_8);
        }
    }
}
