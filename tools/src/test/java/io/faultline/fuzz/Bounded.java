package io.faultline.fuzz;

import java.lang.management.ManagementFactory;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One read of a fuzzed input, held to what every reader promises: it returns, or it throws the
 * reader's own exception with a one-line message that names the problem in words, never Java's
 * (no exception class, no stack frame). It must do so within {@link #TIMEOUT_S} seconds (a
 * loop on a corrupt length is a hang) and without allocating more than a bound proportional to
 * the input (a corrupt count taken at its word is an OutOfMemoryError on a real trace).
 */
final class Bounded
{
    static final int TIMEOUT_S = 10;

    /** Bytes a read may allocate: a fixed allowance, then this many per input byte. */
    static final long ALLOWANCE = 64L << 20;
    static final long PER_INPUT_BYTE = 1000;

    /** A read whose outcome is judged. */
    @FunctionalInterface
    interface Read
    {
        void run() throws Exception;
    }

    private static ExecutorService executor = newExecutor();
    private static volatile Thread reader;

    private static ExecutorService newExecutor()
    {
        return Executors.newSingleThreadExecutor(r ->
        {
            final Thread thread = new Thread(r, "fuzzed-read");
            thread.setDaemon(true);
            reader = thread;
            return thread;
        });
    }

    private static void renew()
    {
        executor.shutdownNow();
        executor = newExecutor();
    }

    private Bounded()
    {
    }

    /**
     * Runs {@code read} on an input of {@code inputBytes} bytes.
     *
     * @param allowed the exception the reader documents for bad input
     * @throws AssertionError describing the finding: a hang, an allocation beyond the bound, an
     *                        exception of another class, or a message in Java's words
     */
    static void check(final String what, final long inputBytes, final Class<? extends Exception> allowed,
        final Read read)
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final AtomicLong allocated = new AtomicLong();
        final Future<Throwable> outcome = executor.submit(() ->
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            try
            {
                read.run();
                return null;
            }
            catch (final Throwable ex)
            {
                return ex;
            }
            finally
            {
                allocated.set(threads.getCurrentThreadAllocatedBytes() - before);
            }
        });
        final Throwable thrown;
        try
        {
            thrown = outcome.get(TIMEOUT_S, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            final StringBuilder where = new StringBuilder();
            for (final StackTraceElement frame : reader.getStackTrace())
            {
                where.append("\n\tat ").append(frame);
            }
            outcome.cancel(true);
            // the hung read keeps its thread: later reads get a new one
            renew();
            throw new AssertionError(what + ": no answer in " + TIMEOUT_S + " s (a hang), in" + where);
        }
        catch (final InterruptedException | ExecutionException ex)
        {
            throw new AssertionError(what + ": " + ex, ex);
        }
        final long bound = ALLOWANCE + PER_INPUT_BYTE * inputBytes;
        if (allocated.get() > bound)
        {
            throw new AssertionError(what + ": allocated " + allocated.get() + " bytes for " + inputBytes
                + " bytes of input (bound " + bound + ")");
        }
        if (thrown == null)
        {
            return;
        }
        if (!allowed.isInstance(thrown))
        {
            throw new AssertionError(what + ": threw " + thrown, thrown);
        }
        final String message = thrown.getMessage();
        if (message == null || message.isBlank() || message.contains("\n") || message.contains("\r")
            || message.matches(".*(Exception|Error\\b|java\\.|\\bat [a-z]+\\.).*"))
        {
            throw new AssertionError(what + ": its message is not one line in words: '" + message + "'", thrown);
        }
    }

    /** Keeps a finding's input in target/fuzz-findings, for its regression test and bench/fuzz.sh's count. */
    static void keep(final String what, final byte[] input)
    {
        try
        {
            final java.nio.file.Path dir = java.nio.file.Files.createDirectories(java.nio.file.Path.of("target",
                "fuzz-findings"));
            java.nio.file.Files.write(dir.resolve(what + "-" + Integer.toHexString(java.util.Arrays.hashCode(input))
                + ".bin"), input);
        }
        catch (final java.io.IOException ignored)
        {
            // the assertion reports the finding anyway
        }
    }
}
