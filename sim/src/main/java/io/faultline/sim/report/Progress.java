package io.faultline.sim.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * A progress line on stderr for a long pass over references: how many are done, the rate and,
 * when the total is known, the time left; redrawn in place twice a second by a daemon thread
 * and erased when the pass ends. Only on a terminal: where stderr is a file or a pipe nothing is
 * printed, so logs hold only the one-line summaries. The pass only publishes a count, which this
 * thread samples: its own loop pays nothing per reference.
 */
public final class Progress implements AutoCloseable
{
    /** Nothing is drawn before a pass has run this long: short passes stay silent. */
    private static final long FIRST_DRAW_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long REDRAW_MS = 500;
    /** ECMA-48 EL, erase in line: clears from the cursor to the end of the line. */
    private static final String ERASE_LINE = "\033[K";

    private static final Progress SILENT = new Progress(null, null, false);

    private final PrintStream err;
    /** The line after a number of nanoseconds. */
    private final LongFunction<String> text;
    /** After each draw the cursor goes back to the line's start (see {@link #beside}). */
    private final boolean home;
    private final long startNs = System.nanoTime();
    private final Thread drawer;
    private volatile boolean closed;
    private boolean drawn;

    private Progress(final PrintStream err, final LongFunction<String> text, final boolean home)
    {
        this.err = err;
        this.text = text;
        this.home = home;
        if (err == null)
        {
            drawer = null;
            return;
        }
        drawer = new Thread(this::drawUntilClosed, "faultline-progress");
        drawer.setDaemon(true);
        drawer.start();
    }

    /**
     * Starts drawing on {@code err} if {@code terminal}, else does nothing.
     *
     * @param what  what the pass does, e.g. "Simulating" or "Reading t.txt"
     * @param total the count at the end of the pass, or -1 if unknown (then no time left is shown)
     * @param done  the count so far; called from the drawing thread, so it must be safe to read
     *              from another thread (a stale value only delays the display)
     */
    public static Progress start(final PrintStream err, final boolean terminal, final String what, final long total,
        final LongSupplier done)
    {
        return terminal ? new Progress(err, elapsedNs -> line(what, done.getAsLong(), total, elapsedNs), false) : SILENT;
    }

    /**
     * As {@link #start}, for a pass beside a program that writes to the same terminal
     * ({@code record}, {@code monitor -- PROGRAM}): the line is {@code text} of the time since the
     * start, and after each draw the cursor goes back to the line's start, so that the program's
     * output starts a line where a line starts and writes over the progress line rather than after it.
     */
    public static Progress beside(final PrintStream err, final boolean terminal, final LongFunction<String> text)
    {
        return terminal ? new Progress(err, text, true) : SILENT;
    }

    /**
     * Whether this process's stderr is a terminal: the link /proc/self/fd/2 names a pseudo
     * terminal or a console (Linux). {@code System.console()} cannot tell, since it looks at
     * stdin and stdout.
     */
    public static boolean stderrIsTerminal()
    {
        try
        {
            final String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            return false;
        }
    }

    /** The progress line after {@code elapsedNs} with {@code count} of {@code total} (-1: unknown) done. */
    static String line(final String what, final long count, final long total, final long elapsedNs)
    {
        final StringBuilder line = new StringBuilder(what).append(": ");
        line.append(String.format(Locale.ROOT, "%,d", count));
        if (total > 0)
        {
            line.append(String.format(Locale.ROOT, " of %,d references (%d%%)", total,
                Math.min(100, count * 100 / total)));
        }
        else
        {
            line.append(" references");
        }
        final double perSecond = elapsedNs > 0 ? count * 1e9 / elapsedNs : 0;
        line.append(", ").append(rate(perSecond));
        if (total > 0 && perSecond > 0 && count <= total)
        {
            line.append(", ").append(duration((long)Math.ceil((total - count) / perSecond))).append(" left");
        }
        return line.toString();
    }

    /** A rate per second, in thousands (k/s) or millions (M/s) from those on. */
    public static String rate(final double perSecond)
    {
        if (perSecond >= 1e6)
        {
            return String.format(Locale.ROOT, "%.1f M/s", perSecond / 1e6);
        }
        if (perSecond >= 1e3)
        {
            return String.format(Locale.ROOT, "%.1f k/s", perSecond / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f /s", perSecond);
    }

    /** Seconds as people read them: 42 s, 3 min 5 s, 2 h 10 min. */
    public static String duration(final long seconds)
    {
        if (seconds < 60)
        {
            return seconds + " s";
        }
        if (seconds < 3600)
        {
            return (seconds / 60) + " min " + (seconds % 60) + " s";
        }
        return (seconds / 3600) + " h " + (seconds % 3600 / 60) + " min";
    }

    private void drawUntilClosed()
    {
        try
        {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(FIRST_DRAW_NS));
            while (!closed)
            {
                final String line = text.apply(System.nanoTime() - startNs);
                synchronized (this)
                {
                    if (closed)
                    {
                        return;
                    }
                    err.print("\r" + line + ERASE_LINE + (home ? "\r" : ""));
                    err.flush();
                    drawn = true;
                }
                Thread.sleep(REDRAW_MS);
            }
        }
        catch (final InterruptedException ex)
        {
            // Closed while asleep.
        }
    }

    /**
     * {@code err} for messages written while this line may be drawn (warnings, a summary): each
     * write first erases the line, so the message starts on a clean line, and the next draw puts
     * the line back after it. Without a line, {@code err} itself.
     */
    public PrintStream messages(final PrintStream err)
    {
        if (drawer == null)
        {
            return err;
        }
        return new PrintStream(new OutputStream()
        {
            @Override
            public void write(final int b)
            {
                write(new byte[] {(byte)b}, 0, 1);
            }

            @Override
            public void write(final byte[] bytes, final int offset, final int length)
            {
                synchronized (Progress.this)
                {
                    if (drawn)
                    {
                        err.print("\r" + ERASE_LINE);
                        drawn = false;
                    }
                    err.write(bytes, offset, length);
                    err.flush();
                }
            }
        }, true, Charset.defaultCharset());
    }

    /** Stops drawing and erases the line, so that what follows starts on a clean line. */
    @Override
    public void close()
    {
        if (drawer == null)
        {
            return;
        }
        synchronized (this)
        {
            closed = true;
            if (drawn)
            {
                err.print("\r" + ERASE_LINE);
                err.flush();
            }
        }
        drawer.interrupt();
    }
}
