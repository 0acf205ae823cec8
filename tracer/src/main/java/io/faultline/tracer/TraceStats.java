package io.faultline.tracer;

import java.util.Map;
import java.util.TreeMap;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.LongHashSet;

/** Totals the recorder computes while it writes the trace, for the header and the summary line. */
public final class TraceStats
{
    /** Per-thread counts. */
    public static final class ThreadStats
    {
        public final int tid;
        public int pid;
        public long references;
        public long reads;
        public long writes;
        public String name = "";

        ThreadStats(final int tid)
        {
            this.tid = tid;
        }
    }

    /** Per-process counts and what the agent said about it. */
    public static final class ProcessStats
    {
        public final int pid;
        public int ppid;
        public long references;
        public String executable = "";

        ProcessStats(final int pid)
        {
            this.pid = pid;
        }
    }

    /** A program the agent could not follow (event untraced), as the agent said it. */
    public record Untraced(int pid, int why, int machine, String executable)
    {
        /** Why, in words: "it is statically linked". */
        public String reason()
        {
            return TraceStats.reason(why, machine);
        }
    }

    public long references;
    public long reads;
    public long writes;
    public long chunks;
    public long events;
    private final LongHashSet pages = new LongHashSet();
    /** Pages with a dirty eviction record (tag w or W), or in Moca mode with a write fault: see {@link #writtenPages}. */
    private final LongHashSet written = new LongHashSet();
    private final Int2ObjectHashMap<ThreadStats> threads = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<ProcessStats> processes = new Int2ObjectHashMap<>();
    private final Map<Integer, Untraced> untraced = new TreeMap<>();
    private final int pageShift;
    private java.io.PrintStream notices;

    public TraceStats(final int pageSize)
    {
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
    }

    /** Says each program the agent cannot follow on {@code err}, in one line, as the logger writes its event. */
    public void noticesTo(final java.io.PrintStream err)
    {
        this.notices = err;
    }

    /** The reasons of event untraced (native-shims/src/untraced.h), in words. */
    public static String reason(final int why, final int machine)
    {
        return switch (why)
        {
            case 1 -> "it is statically linked, and the agent loads into dynamically linked programs only";
            case 2 -> "it runs set-user-ID, set-group-ID or with file capabilities, and the dynamic loader then ignores LD_PRELOAD";
            case 3 -> ((machine >>> 16) == 1 ? "it is a 32-bit program" : "it is built for another architecture (ELF machine "
                + (machine & 0xffff) + ")") + ", into which the 64-bit agent cannot load";
            case 4 -> "its environment no longer names the agent (LD_PRELOAD or FAULTLINE_SHM removed)";
            default -> "the agent did not start in it";
        };
    }

    /** The programs the agent could not follow, by pid. */
    public Map<Integer, Untraced> untraced()
    {
        return new TreeMap<>(untraced);
    }

    public void onChunk(final DirectBuffer buffer, final int offset)
    {
        final int pid = buffer.getInt(offset + ChunkDescriptor.PID);
        final int tid = buffer.getInt(offset + ChunkDescriptor.TID);
        final int count = buffer.getInt(offset + ChunkDescriptor.COUNT);
        final int flags = buffer.getInt(offset + ChunkDescriptor.FLAGS);
        final ThreadStats thread = thread(tid, pid);
        final ProcessStats process = process(pid);
        final boolean moca = ChunkDescriptor.isMoca(flags);
        long writesHere = 0;
        for (int i = 0; i < count; i++)
        {
            final int r = offset + ChunkDescriptor.recordOffset(flags, i);
            if ((buffer.getInt(r + ChunkDescriptor.RECORD_FLAGS) & ChunkDescriptor.REC_WRITE) != 0)
            {
                writesHere++;
            }
            final long page = page(pid, buffer.getLong(r + ChunkDescriptor.RECORD_ADDRESS));
            pages.add(page);
            if (moca && buffer.getInt(r + ChunkDescriptor.RECORD_MOCA_WRITES) > 0)
            {
                written.add(page);
            }
        }
        chunks++;
        references += count;
        writes += writesHere;
        reads += count - writesHere;
        thread.references += count;
        thread.writes += writesHere;
        thread.reads += count - writesHere;
        process.references += count;
    }

    public void onEvent(final DirectBuffer buffer, final int offset)
    {
        events++;
        final EventType type = EventType.of(buffer.getInt(offset + EventDescriptor.TYPE));
        final int pid = buffer.getInt(offset + EventDescriptor.PID);
        final int tid = buffer.getInt(offset + EventDescriptor.TID);
        if (type == EventType.EVICT && isDirtyTag(buffer.getLong(offset + EventDescriptor.B)))
        {
            written.add(page(pid, buffer.getLong(offset + EventDescriptor.A)));
        }
        else if (type == EventType.PROCESS_START)
        {
            final ProcessStats process = process(pid);
            process.ppid = (int)buffer.getLong(offset + EventDescriptor.A);
            process.executable = text(buffer, offset);
        }
        else if (type == EventType.THREAD_NAME)
        {
            thread(tid, pid).name = text(buffer, offset);
        }
        else if (type == EventType.THREAD_START)
        {
            thread(tid, pid);
        }
        else if (type == EventType.UNTRACED)
        {
            untraced((int)buffer.getLong(offset + EventDescriptor.A), (int)buffer.getLong(offset + EventDescriptor.B),
                (int)buffer.getLong(offset + EventDescriptor.C), text(buffer, offset));
        }
    }

    private void untraced(final int pid, final int why, final int machine, final String executable)
    {
        final java.io.PrintStream err = notices;
        if (why == 0)
        {
            if (untraced.remove(pid) != null && err != null)
            {
                err.println("faultline record: pid " + pid + " did not exec " + executable + " after all (the exec failed); "
                    + "it goes on traced");
            }
            return;
        }
        final Untraced u = new Untraced(pid, why, machine, executable);
        untraced.put(pid, u);
        if (err != null)
        {
            err.println("faultline record: pid " + pid + " runs " + executable + " untraced: " + u.reason());
        }
    }

    private static String text(final DirectBuffer buffer, final int offset)
    {
        final int length = buffer.getInt(offset + EventDescriptor.TEXT_LENGTH);
        return buffer.getStringWithoutLengthUtf8(offset + EventDescriptor.HEADER_SIZE, length);
    }

    ThreadStats thread(final int tid, final int pid)
    {
        ThreadStats thread = threads.get(tid);
        if (thread == null)
        {
            thread = new ThreadStats(tid);
            thread.pid = pid;
            threads.put(tid, thread);
        }
        return thread;
    }

    public ProcessStats process(final int pid)
    {
        ProcessStats process = processes.get(pid);
        if (process == null)
        {
            process = new ProcessStats(pid);
            processes.put(pid, process);
        }
        return process;
    }

    public long distinctPages()
    {
        return pages.size();
    }

    /**
     * Distinct pages the program wrote: those that left the EVMS dirty, by their eviction
     * records' tags (FORMAT.md, "EVMS"), or in Moca mode those with a write fault in an
     * interval. What users mean by writes, where {@link #writes} counts the faults that were
     * writes: a page first read and then written is one read fault and, with dirty tracking, a
     * written page. Every page leaves when a process exits normally; one killed by a signal or
     * ended by _exit leaves no eviction records, and its pages are not counted.
     */
    public long writtenPages()
    {
        return written.size();
    }

    /** An eviction record's tag (event field b) says the page was written while resident: w or W. */
    public static boolean isDirtyTag(final long tag)
    {
        return tag == 'w' || tag == 'W';
    }

    /** A page, per process: the same address in two processes is two pages (a fork child's copy). */
    private long page(final int pid, final long address)
    {
        return (address >>> pageShift) | ((long)pid << 42);
    }

    /** Threads seen, without copying them as {@link #threads()} does. */
    public int threadCount()
    {
        return threads.size();
    }

    /** Processes seen, without copying them as {@link #processes()} does. */
    public int processCount()
    {
        return processes.size();
    }

    public Map<Integer, ThreadStats> threads()
    {
        return new TreeMap<>(threads);
    }

    public Map<Integer, ProcessStats> processes()
    {
        return new TreeMap<>(processes);
    }
}
