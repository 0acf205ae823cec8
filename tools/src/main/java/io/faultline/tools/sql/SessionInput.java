package io.faultline.tools.sql;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.jline.keymap.KeyMap;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.Reference;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Attributes;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * Where {@code faultline sql}'s statements come from when no query is given: on a terminal, JLine's
 * line editor (arrow keys, the history of earlier sessions in {@code ~/.faultline_sql_history},
 * Ctrl-C dropping what is being typed, Ctrl-D leaving); otherwise standard input's lines, with
 * the prompt printed only for a session that is interactive.
 */
public interface SessionInput extends AutoCloseable
{
    /** What {@link #readLine} returns when the user dropped the line being typed (Ctrl-C): compare by identity. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    String DROPPED = new String("");

    /** The line editor's widget that Ctrl-C runs. */
    String DROP_LINE = "faultline-drop-line";

    /** The next line, after {@code prompt} where there is one to show; null at the input's end. */
    String readLine(String prompt) throws IOException;

    @Override
    void close();

    /**
     * JLine on a terminal ({@code interactive}, and a terminal it can drive), else the lines of
     * {@code in}, prompts printed on {@code out} if {@code interactive}.
     */
    static SessionInput of(final InputStream in, final PrintStream out, final boolean interactive)
    {
        if (interactive)
        {
            try
            {
                final Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build();
                if (!Terminal.TYPE_DUMB.equals(terminal.getType()) && !Terminal.TYPE_DUMB_COLOR.equals(terminal.getType()))
                {
                    return editor(terminal);
                }
                terminal.close();
            }
            catch (final IOException | RuntimeException | LinkageError ex)
            {
                // no editor here: the plain lines below, which still work
            }
        }
        final BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        return new SessionInput()
        {
            @Override
            public String readLine(final String prompt) throws IOException
            {
                if (interactive)
                {
                    out.print(prompt);
                    out.flush();
                }
                return lines.readLine();
            }

            @Override
            public void close()
            {
                // standard input stays open: it is the process's
            }
        };
    }

    private static SessionInput editor(final Terminal terminal)
    {
        // $HOME first, as shells and other prompts take it; the JVM's user.home is the password file's
        final String env = System.getenv("HOME");
        final String home = env != null && !env.isEmpty() ? env : System.getProperty("user.home");
        final LineReaderBuilder builder = LineReaderBuilder.builder().terminal(terminal).appName("faultline sql");
        if (home != null && !home.isEmpty())
        {
            builder.variable(LineReader.HISTORY_FILE, Path.of(home, ".faultline_sql_history"));
        }
        final LineReader reader = builder.build();
        // Ctrl-C is a key while a line is edited, not a signal: a SIGINT makes the terminal drop what
        // it holds of the input, and it reached JLine's reading thread only with the next key.
        // Outside the editor (a query running) it stays the signal that ends the session.
        reader.getWidgets().put(DROP_LINE, () ->
        {
            throw new UserInterruptException(reader.getBuffer().toString());
        });
        reader.getKeyMaps().get(LineReader.MAIN).bind(new Reference(DROP_LINE), KeyMap.ctrl('C'));
        return new SessionInput()
        {
            @Override
            public String readLine(final String prompt)
            {
                final Attributes outside = terminal.getAttributes();
                final Attributes editing = new Attributes(outside);
                editing.setLocalFlag(Attributes.LocalFlag.ISIG, false);
                terminal.setAttributes(editing);
                try
                {
                    return reader.readLine(prompt);
                }
                catch (final UserInterruptException ex)
                {
                    return DROPPED;
                }
                catch (final EndOfFileException ex)
                {
                    return null;
                }
                finally
                {
                    terminal.setAttributes(outside);
                }
            }

            @Override
            public void close()
            {
                try
                {
                    reader.getHistory().save();
                }
                catch (final IOException | RuntimeException ex)
                {
                    // a history that cannot be written costs the next session its recall, nothing more
                }
                try
                {
                    terminal.close();
                }
                catch (final IOException ex)
                {
                    // the terminal's settings go back when the process ends at the latest
                }
            }
        };
    }
}
