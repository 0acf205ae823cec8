package io.faultline.api;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.faultline.tracer.AttachedRecorder;
import io.faultline.tracer.RecorderJvm;

/**
 * The recording's recorder, {@link AttachedRecorder}, in a child JVM: it creates the shared
 * memory, drains the agent's ring into the trace and completes it (the protocol is in its
 * Javadoc). It must not be a thread of this JVM: the agent's fault path may wait on it.
 */
final class RecorderProcess
{
    private final Process process;
    private final BufferedReader out;
    private final OutputStream in;

    private RecorderProcess(final Process process)
    {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = process.getOutputStream();
    }

    static RecorderProcess start(final Path dir, final RecordOptions options)
    {
        final List<String> command = RecorderJvm.command(AttachedRecorder.class, AttachedRecorder.arguments(dir,
            options.evmsPages(), options.ringBytes(), options.chunkRecords(), thisJvmCommand()));
        try
        {
            return new RecorderProcess(new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }
        catch (final IOException ex)
        {
            throw new FaultlineException("cannot start the recorder process " + command.get(0) + ": "
                + ex.getMessage() + "; check that this JVM's java.home holds bin/java");
        }
    }

    private static List<String> thisJvmCommand()
    {
        final ProcessHandle.Info info = ProcessHandle.current().info();
        final List<String> words = new ArrayList<>();
        words.add(info.command().orElse("java"));
        info.arguments().ifPresent(args -> words.addAll(List.of(args)));
        return words;
    }

    long pid()
    {
        return process.pid();
    }

    /** The first line: the shared memory's path once the recorder is ready. */
    String awaitSharedMemory()
    {
        final String line = line();
        if (line != null && line.startsWith("shm "))
        {
            return line.substring(4);
        }
        throw new FaultlineException(failure(line, "before it was ready"));
    }

    /** Says the agent is done, waits for the completed trace; returns the recorder's "done" line's fields. */
    String finish()
    {
        try
        {
            in.write("stop\n".getBytes(StandardCharsets.US_ASCII));
            in.close();
        }
        catch (final IOException ex)
        {
            // it died: line() says so
        }
        final String line = line();
        waitFor();
        if (line != null && line.startsWith("done "))
        {
            return line.substring(5);
        }
        throw new FaultlineException(failure(line, "before the trace was complete"));
    }

    /** Stops the recorder and has it delete the trace (a recording that never started or broke). */
    void abandon()
    {
        try
        {
            in.write("abandon\n".getBytes(StandardCharsets.US_ASCII));
            in.close();
        }
        catch (final IOException ignored)
        {
            // already gone
        }
        waitFor();
    }

    boolean isAlive()
    {
        return process.isAlive();
    }

    /** The recorder's exit status, or -1 while it runs. */
    int exitStatus()
    {
        return process.isAlive() ? -1 : process.exitValue();
    }

    private String line()
    {
        try
        {
            return out.readLine();
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    private void waitFor()
    {
        try
        {
            if (!process.waitFor(120, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor();
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private String failure(final String line, final String when)
    {
        if (line != null && line.startsWith("error "))
        {
            return line.substring(6);
        }
        waitFor();
        return "the recorder process (pid " + process.pid() + ") exited with status " + process.exitValue() + " " + when
            + (line == null ? "" : " saying: " + line) + "; its error output above says why";
    }
}
