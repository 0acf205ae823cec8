package io.faultline.format;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.stream.Stream;

import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongHashSet;

/**
 * Reads a trace directory written by {@link TraceWriter}: checks the header, then delivers
 * references and events in the trace's true order, global {@code seq} order across processes
 * (trace-format/FORMAT.md, "Order").
 * <p>
 * A read makes two passes over the queue. The first, a survey, checks every excerpt
 * ({@link ExcerptCheck}, and that each process's excerpts keep their seq order), finds the
 * processes, and decides where reading stops: at the first corrupt excerpt, or, with
 * {@code skipCorrupt}, nowhere but at a break in the queue itself, leaving the corrupt excerpts
 * out. The second delivers. The agent writes one process's ring from one thread and the
 * recorder copies each ring in order, so each process's excerpts are in seq order in the queue;
 * several processes are merged with one cursor per process (a k-way merge: memory for k
 * excerpts, each cursor passing over the others' excerpts by their pid alone).
 * <p>
 * A trace whose header says {@code state=recording} (its recorder died) is read up to its
 * last complete excerpt; {@link ReadSummary#notes} says so. Every problem is a
 * {@link TraceFormatException} with one line that names it, delivered after everything before
 * the corrupt excerpt and nothing from it.
 * <p>
 * Times are delivered from the program's start ({@link #programStartNs}), not from the
 * recording's, which the trace's bytes count from: the recorder's own start-up (its queue, the
 * program's exec and the agent's constructor) is not the program's time (FORMAT.md, "Time").
 */
public final class TraceReader implements AutoCloseable
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int KIND = TraceLayout.EXCERPT_KIND_SIZE;
    /** Events sort before records of the same seq: an event's seq is the clock when it happened, not yet taken. */
    private static final int EVENT_RANK = 0;
    private static final int RECORD_RANK = 1;

    private final Path dir;
    private final TraceHeader header;
    private final SingleChronicleQueue queue;
    private final boolean skipCorrupt;
    private final boolean live;
    private Survey survey;
    /** What the user named: the directory, or the packed trace that {@link #dir} was unpacked from. */
    private Path shown;
    /** For a packed trace: deletes its unpacked directory (also at exit, should close not come). */
    private Thread cleanUp;

    private TraceReader(final Path dir, final TraceHeader header, final SingleChronicleQueue queue,
        final boolean skipCorrupt, final boolean live)
    {
        this.dir = dir;
        this.shown = dir;
        this.header = header;
        this.queue = queue;
        this.skipCorrupt = skipCorrupt;
        this.live = live;
    }

    /** Opens a trace; a corrupt excerpt stops every read with an error. */
    public static TraceReader open(final Path dir)
    {
        return open(dir, false);
    }

    /**
     * @param path        a trace directory, or a packed trace ({@link TracePack}: one file, which
     *                    begins as one or is named so), unpacked into a temporary directory that
     *                    {@link #close} deletes
     * @param skipCorrupt read past corrupt excerpts, leaving them out and counting them, instead
     *                    of stopping at the first
     */
    public static TraceReader open(final Path path, final boolean skipCorrupt)
    {
        if (!Files.isRegularFile(path))
        {
            return openDirectory(path, skipCorrupt);
        }
        if (!TracePack.isPack(path) && !path.getFileName().toString().endsWith(TracePack.EXTENSION))
        {
            throw new TraceFormatException("no trace at " + path + ": it is a file, neither a trace directory nor a packed"
                + " trace; give a directory written by faultline record, or a file written by faultline pack",
                InputProblem.MISUSED);
        }
        final Path unpacked;
        try
        {
            unpacked = Files.createTempDirectory("faultline-trace");
        }
        catch (final IOException ex)
        {
            throw new TraceFormatException("cannot unpack " + path + ": the temporary directory " + System.getProperty(
                "java.io.tmpdir") + " refused a new directory (" + InputProblem.reason(ex) + ")", InputProblem.UNREADABLE);
        }
        final Thread cleanUp = new Thread(() -> TracePack.deleteTree(unpacked));
        Runtime.getRuntime().addShutdownHook(cleanUp);
        try
        {
            TracePack.unpack(path, unpacked);
            final TraceReader reader = openDirectory(unpacked, skipCorrupt);
            reader.shown = path;
            reader.cleanUp = cleanUp;
            return reader;
        }
        catch (final TraceFormatException ex)
        {
            removeUnpacked(unpacked, cleanUp);
            // the user gave the file: its name, not the temporary directory's, in what is wrong
            throw new TraceFormatException(ex.getMessage().replace(unpacked.toString(), path.toString()), ex.problem());
        }
        catch (final RuntimeException | Error ex)
        {
            removeUnpacked(unpacked, cleanUp);
            throw ex;
        }
    }

    private static void removeUnpacked(final Path unpacked, final Thread cleanUp)
    {
        TracePack.deleteTree(unpacked);
        try
        {
            Runtime.getRuntime().removeShutdownHook(cleanUp);
        }
        catch (final IllegalStateException ex)
        {
            // shutting down: the hook runs anyway
        }
    }

    private static TraceReader openDirectory(final Path dir, final boolean skipCorrupt)
    {
        TraceHeader header = TraceHeader.readDirectory(dir, "trace");
        final boolean live = TraceLayout.STATE_RECORDING.equals(header.get(TraceHeader.STATE)) && TraceWriter.isBeingWritten(dir);
        if (!live && TraceLayout.STATE_RECORDING.equals(header.get(TraceHeader.STATE)))
        {
            // The writer replaces the header before it lets go of the lock: a recording that ended
            // between the two reads has its final header in place now.
            header = TraceHeader.readDirectory(dir, "trace");
        }
        final Path headerFile = dir.resolve(TraceLayout.HEADER_FILE);
        if (TraceLayout.CONTENT_MONITOR.equals(header.get(TraceHeader.CONTENT)))
        {
            throw new TraceFormatException(dir + " is a DAMON monitoring record (written by faultline monitor), not a trace;"
                + " give a trace written by faultline record (faultline report reads monitoring records)", InputProblem.MISUSED);
        }
        final long version = header.longValue(TraceHeader.FORMAT_VERSION);
        if (version < TraceLayout.MIN_FORMAT_VERSION || version > TraceLayout.FORMAT_VERSION)
        {
            throw new TraceFormatException("trace " + dir + " has format version " + version
                + " but this faultline reads versions " + TraceLayout.MIN_FORMAT_VERSION + " to "
                + TraceLayout.FORMAT_VERSION + "; use a matching faultline", InputProblem.MISUSED);
        }
        final String state = header.get(TraceHeader.STATE);
        if (!header.isComplete() && !TraceLayout.STATE_RECORDING.equals(state)
            && !TraceLayout.STATE_INCOMPLETE.equals(state))
        {
            throw new TraceFormatException("corrupt trace header " + headerFile + ": state is '" + state
                + "', not complete, incomplete or recording");
        }
        header.pageSize();
        final Path queueDir = dir.resolve(TraceLayout.QUEUE_DIR);
        final boolean hasData;
        try (Stream<Path> files = Files.isDirectory(queueDir) ? Files.list(queueDir) : Stream.empty())
        {
            hasData = files.anyMatch(p -> p.getFileName().toString().endsWith(".cq4"));
        }
        catch (final IOException ex)
        {
            throw new TraceFormatException("cannot read trace " + dir + ": " + InputProblem.reason(ex),
                InputProblem.UNREADABLE);
        }
        if (header.isComplete())
        {
            header.longValue(TraceHeader.REFERENCES);
            if (!hasData && header.longValue(TraceHeader.REFERENCES) + header.longValue(TraceHeader.EVENTS) > 0)
            {
                throw new TraceFormatException("truncated trace " + dir + ": the queue files are missing");
            }
        }
        if (!hasData)
        {
            return new TraceReader(dir, header, null, skipCorrupt, live);
        }
        try
        {
            return new TraceReader(dir, header,
                openQueue(queueDir), skipCorrupt, live);
        }
        catch (final Exception | InternalError ex)
        {
            throw new TraceFormatException("corrupt trace " + dir + ": its queue cannot be opened ("
                + QueueFaults.describe(ex) + ")");
        }
    }

    /**
     * How long a reader waits for a queue file's first header to be complete. Chronicle waits
     * for a writer to finish it, 10 s by default; a damaged or zeroed header never finishes, and
     * every read of such a trace hung that long (TraceReaderFuzzTest). A live writer completes
     * it microseconds after it creates the file.
     */
    static final long FIRST_HEADER_TIMEOUT_MS = 1_000;

    /** A queue opened for reading only; the trace and monitoring-record readers share it. */
    public static SingleChronicleQueue openQueue(final Path queueDir)
    {
        return SingleChronicleQueueBuilder.binary(queueDir.toFile()).readOnly(true).timeoutMS(FIRST_HEADER_TIMEOUT_MS)
            .build();
    }

    public TraceHeader header()
    {
        return header;
    }

    /** The trace as the user named it: its directory, or its packed file. */
    public Path dir()
    {
        return shown;
    }

    /**
     * For readers that replay references: a Moca trace holds, per thread and interval, the pages
     * touched and their fault counts, not a reference stream.
     *
     * @param use what needs the references, for the message ("simulate")
     * @throws TraceFormatException with one line that says why and what to do instead
     */
    public void requireReferences(final String use)
    {
        if (header.isMoca())
        {
            throw new TraceFormatException(shown + " was recorded with --mode moca: it holds the pages each thread "
                + "touched per interval, not a stream of references, so " + use + " cannot replay it; record with "
                + "--mode trace for that (faultline dump and export --to moca read Moca traces)", InputProblem.MISUSED);
        }
    }

    /**
     * When the traced program started, in nanoseconds since the recording started (the time base
     * of the trace's bytes): the time of its first process-start event, which the agent of the
     * program's first process emits as it starts, before any record. Every time this reader
     * delivers (records, events, Moca chunks, {@link ReadSummary#lastTimeNs}) is less this; so
     * must be a time taken from the header ({@link #sinceProgramStart}). 0 for a trace without a
     * process-start event (its times are delivered as written). Should anything in the trace be
     * earlier than the event, the earliest time is taken instead, so that no time is negative.
     *
     * @throws TraceFormatException as {@link #scan} would, for a trace it cannot survey
     */
    public long programStartNs()
    {
        return survey().origin;
    }

    /**
     * A time counted from the recording's start (the header's {@code duration_ns},
     * {@code stopped_ns}), counted from the program's start instead; never below 0.
     */
    public long sinceProgramStart(final long recordingNs)
    {
        return Math.max(0, recordingNs - programStartNs());
    }

    /**
     * The trace is not complete (header state=recording or incomplete): its recorder stopped
     * before finishing, or is still writing it ({@link #isLive}).
     */
    public boolean isPartial()
    {
        return !header.isComplete();
    }

    /**
     * A recorder was writing the trace when it was opened (state=recording and the writer's lock
     * held: {@link TraceWriter#isBeingWritten}): this read sees what was written so far.
     */
    public boolean isLive()
    {
        return live;
    }

    /**
     * Checks every excerpt without delivering any.
     *
     * @throws TraceFormatException as {@link #forEach} would
     */
    public ReadSummary scan()
    {
        final Survey s = survey();
        s.verify();
        return s.summary;
    }

    public ReadSummary forEachReference(final ReferenceVisitor visitor)
    {
        return forEach(new TraceVisitor()
        {
            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                final long address, final boolean write)
            {
                visitor.onReference(seq, timeNs, pid, tid, address, write);
            }

            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                final long address, final boolean write, final boolean kernel)
            {
                visitor.onReference(seq, timeNs, pid, tid, address, write, kernel);
            }

            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                final long address, final boolean write, final boolean kernel, final int stack)
            {
                visitor.onReference(seq, timeNs, pid, tid, address, write, kernel, stack);
            }
        });
    }

    /**
     * Delivers every reference and event in seq order (events before records of the same seq;
     * events of the same seq by time, then by process in order of appearance).
     *
     * @throws TraceFormatException after delivering everything the corrupt excerpt did not hold
     */
    public ReadSummary forEach(final TraceVisitor visitor)
    {
        final Survey s = survey();
        try
        {
            if (s.streams.size() == 1)
            {
                final ProcessStream only = s.streams.values().iterator().next();
                only.open(queue, 0, s.origin);
                while (only.advance(s))
                {
                    only.deliver(visitor);
                }
                only.close();
            }
            else if (s.streams.size() > 1)
            {
                merge(s, visitor);
            }
        }
        catch (final InternalError ex)
        {
            if (!header.isComplete() && s.brokenOrdinal != Long.MAX_VALUE)
            {
                // A partial trace cut short mid-write: the fault of the cut, which reached the
                // survey late, reached this pass an excerpt or so earlier. Its end is here.
                return s.summary;
            }
            // The survey read the same bytes without a fault: the files changed under us.
            throw new TraceFormatException("trace " + shown + " changed while it was read: its queue file is now "
                + "cut short; read it again");
        }
        catch (final TraceFormatException ex)
        {
            throw ex;
        }
        catch (final VisitorFailure ex)
        {
            // the visitor's own (dump's closed output: dump | head), not the trace's
            throw (RuntimeException)ex.getCause();
        }
        catch (final Exception ex)
        {
            // Chronicle's own checks of a damaged file, past the cursor's guard (TraceReaderFuzzTest)
            throw new TraceFormatException("corrupt trace " + shown + ": its queue cannot be read ("
                + QueueFaults.describe(ex) + ")");
        }
        s.verify();
        return s.summary;
    }

    private void merge(final Survey s, final TraceVisitor visitor)
    {
        final PriorityQueue<ProcessStream> heads = new PriorityQueue<>(s.streams.size(), HEAD_ORDER);
        try
        {
            for (final ProcessStream stream : s.streams.values())
            {
                stream.open(queue, stream.pid, s.origin);
                if (stream.advance(s))
                {
                    heads.add(stream);
                }
            }
            while (!heads.isEmpty())
            {
                final ProcessStream stream = heads.poll();
                stream.deliver(visitor);
                if (stream.advance(s))
                {
                    heads.add(stream);
                }
            }
        }
        finally
        {
            for (final ProcessStream stream : s.streams.values())
            {
                stream.close();
            }
        }
    }

    private static final Comparator<ProcessStream> HEAD_ORDER = (x, y) ->
    {
        int c = Long.compareUnsigned(x.headSeq, y.headSeq);
        if (c == 0)
        {
            c = Integer.compare(x.headRank, y.headRank);
        }
        if (c == 0)
        {
            c = Long.compare(x.headTimeNs, y.headTimeNs);
        }
        return c != 0 ? c : Integer.compare(x.order, y.order);
    };

    private Survey survey()
    {
        if (survey == null)
        {
            survey = new Survey();
            if (queue != null)
            {
                try
                {
                    survey.run();
                }
                catch (final TraceFormatException ex)
                {
                    survey = null;
                    throw ex;
                }
                catch (final Exception | InternalError ex)
                {
                    // Chronicle's checks of the first cycle file, met as the tailer is made
                    // (TraceReaderFuzzTest: StreamCorruptedException "Unexpected magic number")
                    survey = null;
                    throw new TraceFormatException("corrupt trace " + shown + ": its queue cannot be read ("
                        + QueueFaults.describe(ex) + ")");
                }
            }
            else
            {
                survey.finish();
            }
        }
        return survey;
    }

    /** The first pass: every excerpt checked, the processes found, the stop decided. */
    private final class Survey
    {
        final Map<Integer, ProcessStream> streams = new LinkedHashMap<>();
        final LongHashSet skippedIndexes = new LongHashSet();
        /** Chronicle index of the corrupt excerpt reading stops at; MAX_VALUE if none. */
        long stopIndex = Long.MAX_VALUE;
        /** Position of the excerpt where the queue itself could not be read; MAX_VALUE if none. */
        long brokenOrdinal = Long.MAX_VALUE;
        /**
         * Position after the last excerpt the survey found: delivery stops there. A trace still
         * being recorded grows while it is read, and what was written after the survey is
         * neither checked (order, damage) nor counted in the summary, and would reach some
         * processes' streams and not others: a read delivers the trace as the survey saw it.
         */
        long endOrdinal = Long.MAX_VALUE;
        String stopError;
        String unreadable;
        long excerpts;
        long references;
        long events;
        long lastExcerpt = -1;
        long lastTimeNs;
        /** The earliest time of a process-start event, and of anything; MAX_VALUE while none. */
        long processStartNs = Long.MAX_VALUE;
        long firstTimeNs = Long.MAX_VALUE;
        /** What every delivered time is less: the program's start (see programStartNs). */
        long origin;
        ReadSummary summary;

        void run()
        {
            try (ExcerptCursor cursor = new ExcerptCursor(queue))
            {
                try
                {
                    survey(cursor);
                }
                catch (final InternalError ex)
                {
                    // A fault in mapped memory that surfaced after the cursor's own guard (it is
                    // delivered a little after the access): the queue breaks about here.
                    broken(cursor, "the queue file cannot be read there (it is cut short or its framing is damaged)");
                }
                catch (final TraceFormatException ex)
                {
                    throw ex;
                }
                catch (final Exception ex)
                {
                    // Chronicle's framing checks, past the cursor's guard (TraceReaderFuzzTest)
                    broken(cursor, "the queue cannot be read there (" + QueueFaults.describe(ex) + ")");
                }
            }
            finish();
        }

        private void broken(final ExcerptCursor cursor, final String problem)
        {
            brokenOrdinal = Math.min(brokenOrdinal, cursor.ordinal());
            final String where = where(cursor) + problem;
            if (skipCorrupt || !header.isComplete())
            {
                // a partial trace ends where its recorder stopped writing, often mid-excerpt
                unreadable = where;
            }
            else if (stopError == null)
            {
                stopError = "truncated trace " + shown + ": " + where
                    + "; faultline reads the excerpts before it with --skip-corrupt";
            }
        }

        private void survey(final ExcerptCursor cursor)
        {
            {
                while (true)
                {
                    final ExcerptCursor.Step step = cursor.next(0);
                    if (step == ExcerptCursor.Step.END)
                    {
                        endOrdinal = cursor.ordinal();
                        break;
                    }
                    if (step == ExcerptCursor.Step.BROKEN)
                    {
                        broken(cursor, cursor.problem());
                        break;
                    }
                    String problem = step == ExcerptCursor.Step.CORRUPT ? cursor.problem() : null;
                    ProcessStream stream = null;
                    if (problem == null)
                    {
                        final int pid = ExcerptCheck.pid(cursor.excerpt());
                        stream = streams.get(pid);
                        problem = stream == null ? null : stream.goesBack(cursor.excerpt());
                    }
                    if (problem != null)
                    {
                        if (!skipCorrupt)
                        {
                            stopIndex = cursor.index();
                            stopError = "corrupt trace " + shown + ": " + where(cursor) + problem
                                + "; faultline reads past it with --skip-corrupt";
                            break;
                        }
                        skippedIndexes.add(cursor.index());
                        continue;
                    }
                    if (stream == null)
                    {
                        final int pid = ExcerptCheck.pid(cursor.excerpt());
                        stream = new ProcessStream(pid, streams.size(), skippedIndexes);
                        streams.put(pid, stream);
                    }
                    stream.noteLast(cursor.excerpt());
                    count(cursor);
                }
            }
        }

        private void count(final ExcerptCursor cursor)
        {
            final DirectBuffer e = cursor.excerpt();
            excerpts++;
            lastExcerpt = cursor.ordinal();
            if (e.getInt(0, LE) == TraceLayout.EXCERPT_CHUNK && isMoca(e))
            {
                final int count = e.getInt(KIND + ChunkDescriptor.COUNT, LE);
                references += count;
                lastTimeNs = Math.max(lastTimeNs, e.getLong(KIND + ChunkDescriptor.MOCA_CLOSE_NS, LE));
                for (int i = 0; i < count; i++)
                {
                    firstTimeNs = Math.min(firstTimeNs, e.getLong(KIND
                        + ChunkDescriptor.recordOffset(ChunkDescriptor.MOCA, i) + ChunkDescriptor.RECORD_TIME_NS, LE));
                }
            }
            else if (e.getInt(0, LE) == TraceLayout.EXCERPT_CHUNK)
            {
                final int count = e.getInt(KIND + ChunkDescriptor.COUNT, LE);
                references += count;
                for (int i = 0; i < count; i++)
                {
                    final long t = e.getLong(KIND + ChunkDescriptor.recordOffset(i) + ChunkDescriptor.RECORD_TIME_NS, LE);
                    lastTimeNs = Math.max(lastTimeNs, t);
                    firstTimeNs = Math.min(firstTimeNs, t);
                }
            }
            else
            {
                events++;
                final long t = e.getLong(KIND + EventDescriptor.TIME_NS, LE);
                lastTimeNs = Math.max(lastTimeNs, t);
                firstTimeNs = Math.min(firstTimeNs, t);
                if (e.getInt(KIND + EventDescriptor.TYPE, LE) == EventType.PROCESS_START.code())
                {
                    processStartNs = Math.min(processStartNs, t);
                }
            }
        }

        void finish()
        {
            origin = processStartNs == Long.MAX_VALUE ? 0 : Math.min(processStartNs, firstTimeNs);
            summary = new ReadSummary(isPartial(), live, excerpts, references, events, streams.size(), lastExcerpt,
                Math.max(0, lastTimeNs - origin), skippedIndexes.size(), unreadable);
        }

        /** Throws the reason reading stopped, or a complete trace's shortfall against its header. */
        void verify()
        {
            if (stopError != null)
            {
                throw new TraceFormatException(stopError);
            }
            if (header.isComplete() && summary.skipped() == 0 && unreadable == null)
            {
                final long expected = header.longValue(TraceHeader.REFERENCES);
                if (references != expected)
                {
                    throw new TraceFormatException("truncated trace " + shown + ": the header counts " + expected
                        + " references but the queue holds " + references);
                }
            }
        }

        private String where(final ExcerptCursor cursor)
        {
            // a packed trace's queue file by the packed trace's name, not the temporary directory's
            return String.valueOf(cursor.file()).replace(dir.toString(), shown.toString()) + ": excerpt "
                + cursor.ordinal() + ": ";
        }
    }

    /**
     * The excerpts of one process, read by a cursor of its own, one record or event at a time:
     * the merge's unit. The head is the item not yet delivered.
     */
    private static final class ProcessStream
    {
        final int pid;
        final int order;
        private final LongHashSet skipped;
        private ExcerptCursor cursor;
        private DirectBuffer excerpt;
        private int kind;
        private boolean moca;
        private int count;
        private int position;
        private boolean started;
        /** The survey's view of the last excerpt: its last item's seq and rank. */
        private long lastSeq;
        private int lastRank = -1;
        long headSeq;
        int headRank;
        long headTimeNs;

        ProcessStream(final int pid, final int order, final LongHashSet skipped)
        {
            this.pid = pid;
            this.order = order;
            this.skipped = skipped;
        }

        /** Null if the excerpt's first item does not go back before this process's last one. */
        String goesBack(final DirectBuffer e)
        {
            if (e.getInt(0, LE) == TraceLayout.EXCERPT_CHUNK && isMoca(e))
            {
                // placed at its interval's end, as an event is at the moment it happened
                final long close = e.getLong(KIND + ChunkDescriptor.MOCA_CLOSE_SEQ, LE);
                if (lastRank >= 0 && Long.compareUnsigned(close, lastSeq) < 0)
                {
                    return "Moca chunk closed at seq " + Long.toUnsignedString(close) + " of process " + pid
                        + " goes back before seq " + Long.toUnsignedString(lastSeq) + ", which the queue holds before it";
                }
                return null;
            }
            final boolean chunk = e.getInt(0, LE) == TraceLayout.EXCERPT_CHUNK;
            final long seq = chunk ? e.getLong(KIND + ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_SEQ, LE)
                : e.getLong(KIND + EventDescriptor.SEQ, LE);
            final int rank = chunk ? RECORD_RANK : EVENT_RANK;
            if (chunk && e.getInt(KIND + ChunkDescriptor.COUNT, LE) == 0)
            {
                return null;
            }
            final int c = Long.compareUnsigned(seq, lastSeq);
            if (lastRank >= 0 && (c < 0 || (c == 0 && rank < lastRank) || (c == 0 && chunk && lastRank == RECORD_RANK)))
            {
                return "seq " + Long.toUnsignedString(seq) + " of process " + pid + " goes back before seq "
                    + Long.toUnsignedString(lastSeq) + ", which the queue holds before it";
            }
            return null;
        }

        void noteLast(final DirectBuffer e)
        {
            if (e.getInt(0, LE) == TraceLayout.EXCERPT_CHUNK && isMoca(e))
            {
                lastSeq = e.getLong(KIND + ChunkDescriptor.MOCA_CLOSE_SEQ, LE);
                lastRank = EVENT_RANK;
            }
            else if (e.getInt(0, LE) == TraceLayout.EXCERPT_CHUNK)
            {
                final int n = e.getInt(KIND + ChunkDescriptor.COUNT, LE);
                if (n > 0)
                {
                    lastSeq = e.getLong(KIND + ChunkDescriptor.recordOffset(n - 1) + ChunkDescriptor.RECORD_SEQ, LE);
                    lastRank = RECORD_RANK;
                }
            }
            else
            {
                lastSeq = e.getLong(KIND + EventDescriptor.SEQ, LE);
                lastRank = EVENT_RANK;
            }
        }

        /**
         * @param onlyPid pass over other processes' excerpts by pid (0: this is the only process)
         */
        void open(final SingleChronicleQueue queue, final int onlyPid, final long origin)
        {
            // From the start, not by Chronicle's index: its index arrays may be what is damaged.
            cursor = new ExcerptCursor(queue);
            filter = onlyPid;
            this.origin = origin;
        }

        private int filter;
        /** Delivered times are less this: the program's start. */
        private long origin;

        /** Moves the head to the next item; false at the end of this process's part of the queue. */
        boolean advance(final Survey survey)
        {
            if (started && position + 1 < count)
            {
                position++;
                head();
                return true;
            }
            while (true)
            {
                if (cursor.ordinal() + 1 >= Math.min(survey.brokenOrdinal, survey.endOrdinal))
                {
                    return false;
                }
                final ExcerptCursor.Step step = cursor.next(filter);
                if (step == ExcerptCursor.Step.END || step == ExcerptCursor.Step.BROKEN
                    || cursor.index() >= survey.stopIndex)
                {
                    return false;
                }
                if (step == ExcerptCursor.Step.OTHER || skipped.contains(cursor.index()))
                {
                    continue;
                }
                if (step == ExcerptCursor.Step.CORRUPT)
                {
                    // The survey passed this excerpt: the queue changed under us.
                    throw new TraceFormatException("trace " + cursor.file() + " changed while it was read: excerpt "
                        + cursor.ordinal() + ": " + cursor.problem());
                }
                excerpt = cursor.excerpt();
                kind = excerpt.getInt(0, LE);
                moca = kind == TraceLayout.EXCERPT_CHUNK && isMoca(excerpt);
                count = kind == TraceLayout.EXCERPT_CHUNK && !moca ? excerpt.getInt(KIND + ChunkDescriptor.COUNT, LE) : 1;
                if (count == 0)
                {
                    continue;
                }
                position = 0;
                started = true;
                head();
                return true;
            }
        }

        private void head()
        {
            if (moca)
            {
                headSeq = excerpt.getLong(KIND + ChunkDescriptor.MOCA_CLOSE_SEQ, LE);
                headRank = EVENT_RANK;
                headTimeNs = excerpt.getLong(KIND + ChunkDescriptor.MOCA_CLOSE_NS, LE);
            }
            else if (kind == TraceLayout.EXCERPT_CHUNK)
            {
                final int r = KIND + ChunkDescriptor.recordOffset(position);
                headSeq = excerpt.getLong(r + ChunkDescriptor.RECORD_SEQ, LE);
                headRank = RECORD_RANK;
                headTimeNs = excerpt.getLong(r + ChunkDescriptor.RECORD_TIME_NS, LE);
            }
            else
            {
                headSeq = excerpt.getLong(KIND + EventDescriptor.SEQ, LE);
                headRank = EVENT_RANK;
                headTimeNs = excerpt.getLong(KIND + EventDescriptor.TIME_NS, LE);
            }
        }

        void deliver(final TraceVisitor visitor)
        {
            try
            {
                deliverTo(visitor);
            }
            catch (final RuntimeException ex)
            {
                throw new VisitorFailure(ex);
            }
        }

        private void deliverTo(final TraceVisitor visitor)
        {
            if (moca)
            {
                visitor.onMocaChunk(MocaChunk.read(excerpt, KIND, origin));
            }
            else if (kind == TraceLayout.EXCERPT_CHUNK)
            {
                final int r = KIND + ChunkDescriptor.recordOffset(position);
                final int flags = excerpt.getInt(r + ChunkDescriptor.RECORD_FLAGS, LE);
                visitor.onReference(headSeq, headTimeNs - origin, excerpt.getInt(KIND + ChunkDescriptor.PID, LE),
                    excerpt.getInt(KIND + ChunkDescriptor.TID, LE),
                    excerpt.getLong(r + ChunkDescriptor.RECORD_ADDRESS, LE),
                    (flags & ChunkDescriptor.REC_WRITE) != 0, (flags & ChunkDescriptor.REC_KERNEL) != 0,
                    excerpt.getInt(r + ChunkDescriptor.RECORD_STACK, LE));
            }
            else
            {
                visitor.onEvent(event(excerpt, origin));
            }
        }

        void close()
        {
            if (cursor != null)
            {
                cursor.close();
                cursor = null;
            }
        }
    }

    /**
     * What a visitor threw, carried past the catch that turns Chronicle's failures into "corrupt
     * trace": a closed standard output under dump read as a damaged queue file.
     */
    private static final class VisitorFailure extends RuntimeException
    {
        VisitorFailure(final RuntimeException cause)
        {
            super(cause);
        }
    }

    /** A sound chunk excerpt in Moca's layout. */
    private static boolean isMoca(final DirectBuffer e)
    {
        return ChunkDescriptor.isMoca(e.getInt(KIND + ChunkDescriptor.FLAGS, LE));
    }

    static TraceEvent event(final DirectBuffer e, final long origin)
    {
        final int code = e.getInt(KIND + EventDescriptor.TYPE, LE);
        final int textLength = e.getInt(KIND + EventDescriptor.TEXT_LENGTH, LE);
        final byte[] text = new byte[textLength];
        e.getBytes(KIND + EventDescriptor.HEADER_SIZE, text);
        return new TraceEvent(code, EventType.of(code),
            e.getInt(KIND + EventDescriptor.PID, LE),
            e.getInt(KIND + EventDescriptor.TID, LE),
            e.getLong(KIND + EventDescriptor.SEQ, LE),
            e.getLong(KIND + EventDescriptor.TIME_NS, LE) - origin,
            e.getLong(KIND + EventDescriptor.A, LE),
            e.getLong(KIND + EventDescriptor.B, LE),
            e.getLong(KIND + EventDescriptor.C, LE),
            e.getLong(KIND + EventDescriptor.D, LE),
            new String(text, StandardCharsets.UTF_8));
    }

    @Override
    public void close()
    {
        if (queue != null)
        {
            queue.close();
        }
        if (cleanUp != null)
        {
            removeUnpacked(dir, cleanUp);
            cleanUp = null;
        }
    }
}
