package io.faultline.tracer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Why and when a recording stopped before its program ended: the first failure of the
 * logger's writer wins. Set by the logger's thread, read by the recorder's after the program
 * exited.
 */
final class RecordingStop
{
    /** Below this much free space a mapped write that faulted is taken for a full file system. */
    private static final long NEARLY_FULL_BYTES = 1L << 20;

    private final Path output;
    private final long startMonoNs;
    private volatile String cause;
    private volatile long atNs;

    RecordingStop(final Path output, final long startMonoNs)
    {
        this.output = output;
        this.startMonoNs = startMonoNs;
    }

    /** @return true for the first failure, which stops the recording; later ones follow from it */
    synchronized boolean stop(final Throwable failure)
    {
        if (cause != null)
        {
            return false;
        }
        atNs = System.nanoTime() - startMonoNs;
        cause = describe(failure);
        return true;
    }

    boolean happened()
    {
        return cause != null;
    }

    String cause()
    {
        return cause;
    }

    long atNs()
    {
        return atNs;
    }

    /**
     * In words a user acts on. Chronicle Queue writes through a memory mapping, so a full file
     * system reaches us as SIGBUS turned into an InternalError ("a fault occurred in a recent
     * unsafe memory access"), not as an IOException naming ENOSPC: the file system is asked.
     */
    private String describe(final Throwable failure)
    {
        if (output == null)
        {
            // no trace is kept (record --live without -o): the logger itself failed
            final String message = failure.getMessage();
            return "the recorder's logger failed (" + failure.getClass().getSimpleName()
                + (message == null ? "" : ": " + message) + ")";
        }
        if (!Files.isDirectory(output))
        {
            return "the output directory " + output + " was removed";
        }
        try
        {
            final long free = Files.getFileStore(output).getUsableSpace();
            if (free < NEARLY_FULL_BYTES)
            {
                return "the file system holding " + output + " is full (" + free + " bytes free)";
            }
        }
        catch (final IOException ex)
        {
            return "the trace could not be written (" + ex.getMessage() + ")";
        }
        final String message = failure.getMessage();
        return "the trace could not be written (" + failure.getClass().getSimpleName()
            + (message == null ? "" : ": " + message) + ")";
    }
}
