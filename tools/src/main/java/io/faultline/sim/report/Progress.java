package io.faultline.sim.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
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

    private static final Progress SILENT = new Progress(null, null, -1, null);

    private final PrintStream err;
    private final String what;
    private final long total;
    private final LongSupplier done;
    private final long startNs = System.nanoTime();
    private final Thread drawer;
    private volatile boolean closed;
    private boolean drawn;

    private Progress(final PrintStream err, final String what, final long total, final LongSupplier done)
    {
        this.err = err;
        this.what = what;
        this.total = total;
        this.done = done;
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
        return terminal ? new Progress(err, what, total, done) : SILENT;
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

    static String rate(final double perSecond)
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

    static String duration(final long seconds)
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
                final String text = line(what, done.getAsLong(), total, System.nanoTime() - startNs);
                synchronized (this)
                {
                    if (closed)
                    {
                        return;
                    }
                    err.print("\r" + text + ERASE_LINE);
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
