package io.faultline.sim.trace;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.faultline.format.MocaChunk;

/**
 * A Moca trace ({@code record --mode moca}) as Moca's own per-task trace files: Beniamine and
 * Huard, "Moca: an efficient memory trace collection system", Inria research report, 2016,
 * hal-01342679. The format is the one its kernel module wrote to {@code /proc/Moca/taskX} and its
 * {@code moca} script saved as {@code Moca-taskX.log}, from github.com/dbeniamine/MOCA commit
 * ca23811 (2015-03-04, "Reduced line identifier size in trace files") until a4a2983 (2015-12-14),
 * which moved to one CSV file; its README's "Trace" section describes it (e.g. at 8ec894b).
 * One file per task (thread), X numbering them from 0:
 * <pre>
 *   T X TID [PAGE_SIZE]            the task; task 0's line ends with the page size
 *   C ID N START END CPUMASK       a chunk: its id in the task, N pages, the clock at its start and end
 *   A VIRT PHYS NREAD NWRITE CPUMASK   N lines, one per page
 * </pre>
 * What faultline writes into Moca's fields: tasks are numbered in the order of their first
 * fault (Moca numbers them as its module first sees them fault); ID is the thread's chunk id;
 * START and END the chunk's start and end seq (END one past its last record, never equal to
 * START, as Moca makes sure); VIRT the page's address and PHYS 0 (faultline sees no physical
 * addresses), both as 16 hexadecimal digits, as the kernel's {@code %p} printed them then; NREAD
 * counts every fault on the page and NWRITE the write faults, as Moca's module counted them
 * (moca_taskdata.c, Moca_AddToChunk, adds one to its read count on every fault); CPUMASK is 0
 * (userfaultfd does not say on which CPU a fault happened). Parts of one large chunk are joined.
 */
public final class MocaTaskFiles implements AutoCloseable
{
    private final Path dir;
    private final int pageSize;
    private final Map<Integer, Task> tasks = new LinkedHashMap<>();
    private long pages;

    /** One task's file and the chunk it has not written yet (parts with one id are joined). */
    private static final class Task
    {
        final BufferedWriter out;
        MocaChunk[] parts = new MocaChunk[0];

        Task(final BufferedWriter out)
        {
            this.out = out;
        }
    }

    public MocaTaskFiles(final Path dir, final int pageSize)
    {
        this.dir = dir;
        this.pageSize = pageSize;
    }

    /** The file of task {@code index}. */
    public static String fileName(final int index)
    {
        return "Moca-task" + index + ".log";
    }

    public void add(final MocaChunk chunk)
    {
        try
        {
            Task task = tasks.get(chunk.tid());
            if (task == null)
            {
                final int index = tasks.size();
                task = new Task(Files.newBufferedWriter(dir.resolve(fileName(index)), StandardCharsets.US_ASCII));
                task.out.write("T " + index + " " + chunk.tid() + (index == 0 ? " " + pageSize : "") + "\n");
                tasks.put(chunk.tid(), task);
            }
            if (task.parts.length > 0 && task.parts[0].chunkId() != chunk.chunkId())
            {
                flush(task);
            }
            task.parts = java.util.Arrays.copyOf(task.parts, task.parts.length + 1);
            task.parts[task.parts.length - 1] = chunk;
            pages += chunk.pages();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private void flush(final Task task) throws IOException
    {
        final MocaChunk first = task.parts[0];
        final MocaChunk last = task.parts[task.parts.length - 1];
        int n = 0;
        for (final MocaChunk part : task.parts)
        {
            n += part.pages();
        }
        task.out.write("C " + first.chunkId() + " " + n + " " + first.startSeq() + " " + last.endSeq() + " 0\n");
        for (final MocaChunk part : task.parts)
        {
            for (int i = 0; i < part.pages(); i++)
            {
                final long page = Long.divideUnsigned(part.address(i), pageSize) * pageSize;
                task.out.write(String.format(java.util.Locale.ROOT, "A %016x %016x %d %d 0\n", page, 0L,
                    part.reads(i) + part.writes(i), part.writes(i)));
            }
        }
        task.parts = new MocaChunk[0];
    }

    public int tasks()
    {
        return tasks.size();
    }

    public long pages()
    {
        return pages;
    }

    @Override
    public void close() throws IOException
    {
        IOException first = null;
        for (final Task task : tasks.values())
        {
            try (BufferedWriter out = task.out)
            {
                if (task.parts.length > 0)
                {
                    flush(task);
                }
            }
            catch (final IOException ex)
            {
                first = first == null ? ex : first;
            }
        }
        if (first != null)
        {
            throw first;
        }
    }
}
