package io.faultline.format;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads a trace directory written by {@link TraceWriter}: checks the header, then delivers
 * references and events in the trace's true order, global {@code seq} order across processes
 * (trace-format/FORMAT.md, "Order"). It reads format 4 (blocks) and formats 1 to 3 (an excerpt
 * per chunk or event), walking the queue files itself ({@link QueueScanner}).
 * <p>
 * A read makes two passes over the queue. The first, a survey, checks every excerpt (a block's
 * two checksums, {@link BlockDecoder}; an older excerpt's fields, {@link ExcerptCheck}) and that
 * each process's excerpts keep their seq order, finds the processes, finds what damage took
 * ({@link QueueDamage}), and decides where reading stops: at the first damage, or, with
 * {@code skipCorrupt}, nowhere, leaving the damaged excerpts out. The second delivers, merging
 * the processes' sequences with one cursor per process (a k-way merge: memory for k blocks).
 * A format-4 block is decoded whole and checked against its header before any of it is
 * delivered; its process's cursor reads it by its place, which the survey kept.
 * <p>
 * A trace whose header says {@code state=recording} (its recorder died) is read up to its
 * last complete excerpt; {@link ReadSummary#notes} says so. Every problem is a
 * {@link TraceFormatException} with one line that names it, delivered after everything before
 * the damage and nothing from it.
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
    /** The queue's directory; null when it holds no queue file. */
    private final Path queueDir;
    private final boolean skipCorrupt;
    private final boolean live;
    /** Format 4: blocks; else one excerpt per chunk or event. */
    private final boolean blocks;
    private Survey survey;
    /** What the user named: the directory, or the packed trace that {@link #dir} was unpacked from. */
    private Path shown;
    /** For a packed trace: deletes its unpacked directory (also at exit, should close not come). */
    private Thread cleanUp;

    private TraceReader(final Path dir, final TraceHeader header, final Path queueDir, final boolean skipCorrupt,
        final boolean live)
    {
        this.dir = dir;
        this.shown = dir;
        this.header = header;
        this.queueDir = queueDir;
        this.skipCorrupt = skipCorrupt;
        this.live = live;
        this.blocks = header.longValue(TraceHeader.FORMAT_VERSION) >= 4;
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
        if (hasData && version >= 4)
        {
            BlockDecoder.preload();
        }
        return new TraceReader(dir, header, hasData ? queueDir : null, skipCorrupt, live);
    }

    /**
     * How long a Chronicle reader waits for a queue file's first header to be complete. Chronicle
     * waits for a writer to finish it, 10 s by default; a damaged or zeroed header never finishes,
     * and every read of such a record hung that long (TraceReaderFuzzTest). A live writer
     * completes it microseconds after it creates the file. (Traces are read without Chronicle:
     * {@link QueueScanner}.)
     */
    static final long FIRST_HEADER_TIMEOUT_MS = 1_000;

    /** A Chronicle queue opened for reading only: the monitoring-record reader's. */
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
        return deliver(new TraceVisitor()
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
        }, false);
    }

    /**
     * Receives a trace's references a run at a time: consecutive references of one process in
     * trace order, each run after the last, as arrays (valid during the call only) of which
     * {@code from} to {@code to} (exclusive) are the run's. The replays' path (simulate, mrc,
     * sweep): no call for each reference.
     */
    @FunctionalInterface
    public interface ReferenceRuns
    {
        /**
         * @param tids      the thread of each reference
         * @param addresses each reference's exact address
         */
        void onRun(int pid, int[] tids, long[] addresses, int from, int to);
    }

    /**
     * Delivers every reference in trace order, as runs ({@link ReferenceRuns}), the events left
     * out: what {@link #forEachReference} delivers, with the same checks and summary.
     */
    public ReadSummary forEachReferenceRun(final ReferenceRuns runs)
    {
        return deliver(null, false, runs);
    }

    /**
     * Delivers every reference and event in seq order (events before records of the same seq;
     * events of the same seq by time, then by process in order of appearance).
     *
     * @throws TraceFormatException after delivering everything the damage did not take
     */
    public ReadSummary forEach(final TraceVisitor visitor)
    {
        return deliver(visitor, true);
    }

    /** Receives a version 1 to 3 trace's excerpts: u32 kind, then the payload ({@link #forEachExcerpt}). */
    @FunctionalInterface
    interface ExcerptConsumer
    {
        void accept(int kind, DirectBuffer excerpt, int length);
    }

    /**
     * Hands {@code consumer} every sound excerpt of a version 1 to 3 trace in queue order, as the
     * recorder wrote them (what {@link TraceUpgrade} rewrites): those the survey found sound, up to
     * where it stopped; with {@code skipCorrupt}, past corrupt ones.
     *
     * @throws TraceFormatException as {@link #scan} would, before handing anything
     */
    ReadSummary forEachExcerpt(final ExcerptConsumer consumer)
    {
        if (blocks)
        {
            throw new IllegalStateException("a format-4 trace has blocks, not excerpts");
        }
        final Survey s = survey();
        s.verify();
        if (queueDir == null)
        {
            return s.summary;
        }
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        try (QueueScanner scanner = new QueueScanner(queueDir))
        {
            long ordinal = -1;
            while (ordinal + 1 < Math.min(s.brokenOrdinal, Math.min(s.endOrdinal, s.stopOrdinal)))
            {
                final QueueScanner.Step step = scanner.next();
                if (step == QueueScanner.Step.END_OF_FILE && (scanner.endKind() == QueueScanner.EndKind.MARKER
                    || scanner.endKind() == QueueScanner.EndKind.LENGTH))
                {
                    continue;
                }
                if (step != QueueScanner.Step.DOCUMENT)
                {
                    break;
                }
                ordinal++;
                if (s.skippedOrdinals.contains(ordinal))
                {
                    continue;
                }
                view.wrap(scanner.bytes(), scanner.offset(), scanner.length());
                if (ExcerptCheck.problem(view, scanner.length()) != null)
                {
                    throw new TraceFormatException("trace " + shownFile(scanner.file()) + " changed while it was read: excerpt "
                        + ordinal);
                }
                consumer.accept(view.getInt(0, LE), view, scanner.length());
            }
        }
        catch (final IOException ex)
        {
            throw new TraceFormatException("corrupt trace " + shown + ": its queue cannot be read ("
                + InputProblem.reason(ex) + ")");
        }
        return s.summary;
    }

    /** @param events whether the visitor sees events (not for {@link #forEachReference}, which then makes none) */
    private ReadSummary deliver(final TraceVisitor visitor, final boolean events)
    {
        return deliver(visitor, events, null);
    }

    /** Delivers to {@code visitor}, an item at a time, or, where {@code runs} is given, to it a run at a time. */
    private ReadSummary deliver(final TraceVisitor visitor, final boolean events, final ReferenceRuns runs)
    {
        final Survey s = survey();
        final BlockFiles files = blocks && queueDir != null ? new BlockFiles(s.files) : null;
        try
        {
            if (s.streams.size() == 1)
            {
                final ProcessStream only = s.streams.values().iterator().next();
                only.open(s, files, events);
                only.decodeAhead();
                while (only.nextBatch())
                {
                    if (runs != null)
                    {
                        // references alone (the events were not decoded, an old trace's event excerpts passed over)
                        runs.onRun(only.batch.pid, only.batch.tid, only.batch.address, 0, only.batch.size);
                    }
                    else
                    {
                        only.deliverBatch(visitor, events);
                    }
                }
            }
            else if (s.streams.size() > 1 && runs != null)
            {
                mergeRuns(s, files, runs);
            }
            else if (s.streams.size() > 1)
            {
                merge(s, files, visitor, events);
            }
        }
        catch (final IOException ex)
        {
            throw new TraceFormatException("corrupt trace " + shown + ": its queue cannot be read ("
                + InputProblem.reason(ex) + ")");
        }
        finally
        {
            for (final ProcessStream stream : s.streams.values())
            {
                stream.close();
            }
            if (files != null)
            {
                files.close();
            }
        }
        s.verify();
        return s.late.isEmpty() ? s.summary : s.withLate();
    }

    private void merge(final Survey s, final BlockFiles files, final TraceVisitor visitor, final boolean events)
        throws IOException
    {
        final PriorityQueue<ProcessStream> heads = new PriorityQueue<>(s.streams.size(), HEAD_ORDER);
        for (final ProcessStream stream : s.streams.values())
        {
            stream.open(s, files, events);
            if (stream.advance())
            {
                heads.add(stream);
            }
        }
        while (!heads.isEmpty())
        {
            ProcessStream stream = heads.poll();
            final ProcessStream rival = heads.peek();
            // a run of one process's items before the next process's head: no heap operation each
            do
            {
                stream.deliver(visitor, events);
                if (!stream.advance())
                {
                    stream = null;
                    break;
                }
            }
            while (rival == null || HEAD_ORDER.compare(stream, rival) < 0);
            if (stream != null)
            {
                heads.add(stream);
            }
        }
    }

    /**
     * The merge of {@link #merge}, delivering a run at a time: a process's references from its
     * head up to the first that comes after the next process's head.
     */
    private void mergeRuns(final Survey s, final BlockFiles files, final ReferenceRuns runs) throws IOException
    {
        final PriorityQueue<ProcessStream> heads = new PriorityQueue<>(s.streams.size(), HEAD_ORDER);
        for (final ProcessStream stream : s.streams.values())
        {
            stream.open(s, files, false);
            if (stream.advance())
            {
                heads.add(stream);
            }
        }
        while (!heads.isEmpty())
        {
            final ProcessStream stream = heads.poll();
            final ProcessStream rival = heads.peek();
            while (true)
            {
                final ItemBatch b = stream.batch;
                final int from = stream.position;
                int to = from + 1;
                while (to < b.size && (rival == null || stream.before(to, rival)))
                {
                    to++;
                }
                runs.onRun(b.pid, b.tid, b.address, from, to);
                if (to < b.size)
                {
                    stream.moveTo(to);
                    heads.add(stream);
                    break;
                }
                if (!stream.advanceBatch())
                {
                    break;
                }
                if (rival != null && HEAD_ORDER.compare(stream, rival) > 0)
                {
                    heads.add(stream);
                    break;
                }
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
            final Survey s = new Survey();
            if (queueDir != null)
            {
                s.run();
            }
            s.finish();
            survey = s;
        }
        return survey;
    }

    /** A queue file as the user should see it: a packed trace's by the packed trace's name, not the temporary directory's. */
    private String shownFile(final Path file)
    {
        return String.valueOf(file).replace(dir.toString(), shown.toString());
    }

    /** The first pass: every excerpt checked, the processes found, the damage found, the stop decided. */
    private final class Survey
    {
        final Map<Integer, ProcessStream> streams = new LinkedHashMap<>();
        List<Path> files = List.of();
        // formats 1 to 3
        final LongHashSet skippedOrdinals = new LongHashSet();
        /** Position of the corrupt excerpt reading stops at; MAX_VALUE if none. */
        long stopOrdinal = Long.MAX_VALUE;
        /** Position of the excerpt where the queue itself could not be read; MAX_VALUE if none. */
        long brokenOrdinal = Long.MAX_VALUE;
        /**
         * Position after the last excerpt the survey found: delivery stops there. A trace still
         * being recorded grows while it is read, and what was written after the survey is
         * neither checked (order, damage) nor counted in the summary, and would reach some
         * processes' streams and not others: a read delivers the trace as the survey saw it.
         */
        long endOrdinal = Long.MAX_VALUE;
        // format 4
        final QueueDamage damage = new QueueDamage();
        final List<String> damageLines = new ArrayList<>();
        /** Blocks whose checksums match but whose items do not decode, met while delivering (a faulty writer's). */
        final List<String> late = new ArrayList<>();
        long lateReferences;

        String stopError;
        String unreadable;
        long excerpts;
        long references;
        long events;
        long lastExcerpt = -1;
        long lastTimeNs;
        long skipped;
        long skippedReferences;
        /** The earliest time of a process-start event, and of anything; MAX_VALUE while none. */
        long processStartNs = Long.MAX_VALUE;
        long firstTimeNs = Long.MAX_VALUE;
        /** What every delivered time is less: the program's start (see programStartNs). */
        long origin;
        ReadSummary summary;

        void run()
        {
            try (QueueScanner scanner = new QueueScanner(queueDir))
            {
                files = scanner.files();
                if (blocks)
                {
                    surveyBlocks(scanner);
                }
                else
                {
                    surveyExcerpts(scanner);
                }
            }
            catch (final IOException ex)
            {
                final String where = "its queue cannot be read (" + InputProblem.reason(ex) + ")";
                if (!header.isComplete() || skipCorrupt)
                {
                    unreadable = where;
                }
                else if (stopError == null)
                {
                    stopError = "corrupt trace " + shown + ": " + where;
                }
            }
        }

        // ---- formats 1 to 3: one excerpt per chunk or event, no checksums

        private void surveyExcerpts(final QueueScanner scanner) throws IOException
        {
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            long ordinal = -1;
            while (true)
            {
                final QueueScanner.Step step = scanner.next();
                if (step == QueueScanner.Step.END || step == QueueScanner.Step.END_OF_FILE
                    && scanner.endKind() != QueueScanner.EndKind.MARKER && scanner.endKind() != QueueScanner.EndKind.LENGTH)
                {
                    endOrdinal = ordinal + 1;
                    return;
                }
                if (step == QueueScanner.Step.END_OF_FILE)
                {
                    continue;
                }
                if (step == QueueScanner.Step.BROKEN)
                {
                    brokenOrdinal = ordinal + 1;
                    final String where = whereExcerpt(scanner.file(), ordinal + 1) + scanner.problem();
                    if (skipCorrupt || !header.isComplete())
                    {
                        // a partial trace ends where its recorder stopped writing, often mid-excerpt
                        unreadable = where;
                    }
                    else
                    {
                        stopError = "truncated trace " + shown + ": " + where
                            + "; faultline reads the excerpts before it with --skip-corrupt";
                    }
                    return;
                }
                ordinal++;
                view.wrap(scanner.bytes(), scanner.offset(), scanner.length());
                String problem = ExcerptCheck.problem(view, scanner.length());
                ProcessStream stream = null;
                if (problem == null)
                {
                    stream = streams.get(ExcerptCheck.pid(view));
                    problem = stream == null ? null : stream.goesBack(view);
                }
                if (problem != null)
                {
                    if (!skipCorrupt)
                    {
                        stopOrdinal = ordinal;
                        stopError = "corrupt trace " + shown + ": " + whereExcerpt(scanner.file(), ordinal) + problem
                            + "; faultline reads past it with --skip-corrupt";
                        return;
                    }
                    skippedOrdinals.add(ordinal);
                    continue;
                }
                if (stream == null)
                {
                    final int pid = ExcerptCheck.pid(view);
                    stream = new ProcessStream(pid, streams.size());
                    streams.put(pid, stream);
                }
                stream.noteLast(view);
                countExcerpt(view, ordinal);
            }
        }

        private String whereExcerpt(final Path file, final long ordinal)
        {
            return shownFile(file) + ": excerpt " + ordinal + ": ";
        }

        private void countExcerpt(final DirectBuffer e, final long ordinal)
        {
            excerpts++;
            lastExcerpt = ordinal;
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

        // ---- format 4: blocks

        private void surveyBlocks(final QueueScanner scanner) throws IOException
        {
            try (BlockDecoder decoder = new BlockDecoder())
            {
                surveyBlocks(scanner, decoder);
            }
        }

        private void surveyBlocks(final QueueScanner scanner, final BlockDecoder decoder) throws IOException
        {
            final Map<Integer, List<BlockRef>> all = new LinkedHashMap<>();
            long ordinal = -1;
            while (true)
            {
                final QueueScanner.Step step = scanner.next();
                if (step == QueueScanner.Step.END)
                {
                    break;
                }
                final int file = scanner.fileIndex();
                final long at = scanner.position();
                if (step == QueueScanner.Step.END_OF_FILE)
                {
                    if (!live && scanner.endKind() != QueueScanner.EndKind.LENGTH)
                    {
                        // the written part ends here, unless damage to a header word made it look so
                        final long found = scanner.findBlock(at + QueueScanner.HEADER_WORD, decoder);
                        if (found >= 0)
                        {
                            damage.add(new QueueDamage.Region(file, at, found - QueueScanner.HEADER_WORD, ordinal + 1,
                                "its Chronicle header word says the written part of the file ends there, yet blocks follow",
                                null));
                        }
                    }
                    continue;
                }
                if (step == QueueScanner.Step.BROKEN)
                {
                    final String what = scanner.problem();
                    final long found = scanner.findBlock(at + QueueScanner.HEADER_WORD, decoder);
                    damage.add(new QueueDamage.Region(file, at, found >= 0 ? found - QueueScanner.HEADER_WORD
                        : scanner.fileLength(), ordinal + 1, what, null));
                    continue;
                }
                ordinal++;
                final byte[] bytes = scanner.bytes();
                final int offset = scanner.offset();
                final int length = scanner.length();
                final long start = at + QueueScanner.HEADER_WORD;
                if (!decoder.header(bytes, offset, length))
                {
                    final String what = decoder.problem();
                    final long found = scanner.findBlock(start, decoder);
                    damage.add(new QueueDamage.Region(file, at, found >= 0 ? found - QueueScanner.HEADER_WORD
                        : scanner.fileLength(), ordinal, "the excerpt there is no sound block: " + what, null));
                    continue;
                }
                final BlockRef block = new BlockRef(file, start, ordinal, bytes, offset);
                all.computeIfAbsent(block.pid, p -> new ArrayList<>()).add(block);
                if (!decoder.body(bytes, offset, length))
                {
                    damage.add(new QueueDamage.Region(file, start, start + length, ordinal, decoder.problem(), block));
                    continue;
                }
                ProcessStream stream = streams.get(block.pid);
                final String back = stream == null ? null : stream.goesBack(block);
                if (back != null)
                {
                    damage.add(new QueueDamage.Region(file, start, start + length, ordinal, back, block));
                    continue;
                }
                if (stream == null)
                {
                    stream = new ProcessStream(block.pid, streams.size());
                    streams.put(block.pid, stream);
                }
                stream.add(block);
            }
            if (!header.isComplete())
            {
                endAtTornTail(all);
            }
            damage.account(all, this::expectedReferences, files);
        }

        /**
         * A partial trace ends where its recorder stopped writing, and a write that the file
         * system cut short (a full disk: the mapped page the block went into could not be had)
         * leaves a block whose checksum does not match, or bytes that are no block, after the last
         * sound one: that is its end, said as such (ReadSummary#unreadable), not damage.
         */
        private void endAtTornTail(final Map<Integer, List<BlockRef>> all)
        {
            long lastSound = -1;
            for (final ProcessStream stream : streams.values())
            {
                for (final BlockRef b : stream.blocks)
                {
                    lastSound = Math.max(lastSound, b.place());
                }
            }
            QueueDamage.Region first = null;
            for (final java.util.Iterator<QueueDamage.Region> it = damage.regions.iterator(); it.hasNext();)
            {
                final QueueDamage.Region r = it.next();
                if (r.place() > lastSound)
                {
                    it.remove();
                    if (r.block != null)
                    {
                        all.get(r.block.pid).remove(r.block);
                    }
                    first = first == null || r.place() < first.place() ? r : first;
                }
            }
            if (first != null)
            {
                unreadable = shownFile(files.get(first.file)) + " at byte " + first.start + ": "
                    + (first.block != null ? "a block written in part (" + first.what + ")" : first.what);
            }
        }

        /** A process's references by the header of a complete trace ({@code process.PID}), -1 if not known. */
        private Long expectedReferences(final int pid)
        {
            if (!header.isComplete())
            {
                return -1L;
            }
            final String line = header.get(TraceHeader.PROCESS_PREFIX + pid);
            if (line == null)
            {
                return -1L;
            }
            for (final String field : line.split(" "))
            {
                if (field.startsWith("references="))
                {
                    try
                    {
                        return Long.parseLong(field.substring("references=".length()));
                    }
                    catch (final NumberFormatException ex)
                    {
                        return -1L;
                    }
                }
            }
            return -1L;
        }

        /** After the survey of blocks: the stop, the counts of what will be delivered, the damage in words. */
        private void settleBlocks()
        {
            final QueueDamage.Region first = damage.firstLoss();
            if (first != null && !skipCorrupt)
            {
                for (final ProcessStream stream : streams.values())
                {
                    stream.cutAt(first.place());
                }
            }
            for (final ProcessStream stream : streams.values())
            {
                for (final BlockRef b : stream.blocks)
                {
                    excerpts++;
                    lastExcerpt = Math.max(lastExcerpt, b.ordinal);
                    references += b.records;
                    events += b.events;
                    lastTimeNs = Math.max(lastTimeNs, b.maxTime);
                    firstTimeNs = Math.min(firstTimeNs, b.minTime);
                    if (b.startTime != BlockDescriptor.NO_TIME)
                    {
                        processStartNs = Math.min(processStartNs, b.startTime);
                    }
                }
            }
        }

        void finish()
        {
            if (blocks)
            {
                settleBlocks();
            }
            origin = processStartNs == Long.MAX_VALUE ? 0 : Math.min(processStartNs, firstTimeNs);
            final String recorded = header.get(TraceHeader.PROGRAM_START_NS);
            if (blocks && recorded != null)
            {
                // the writer's, from every block: damage that took the process-start event's block
                // does not move the times delivered
                try
                {
                    origin = Math.max(0, Long.parseLong(recorded.trim()));
                }
                catch (final NumberFormatException ex)
                {
                    // a damaged header value: the blocks' own, as computed
                }
            }
            if (blocks)
            {
                for (final QueueDamage.Region r : damage.regions)
                {
                    damageLines.add(QueueDamage.describe(r, shownFile(files.get(r.file)), origin));
                }
                final QueueDamage.Region first = damage.firstLoss();
                if (first != null && !skipCorrupt)
                {
                    final boolean tail = first.block == null && first.gaps.stream().allMatch(g -> g.before == null);
                    stopError = (tail ? "truncated trace " : "corrupt trace ") + shown + ": "
                        + QueueDamage.describe(first, shownFile(files.get(first.file)), origin)
                        + (tail ? "; faultline reads the blocks before it with --skip-corrupt"
                            : "; faultline reads past it with --skip-corrupt");
                }
                skipped = damage.losses();
                final long missing = header.isComplete() ? header.longValue(TraceHeader.REFERENCES) - references : 0;
                if (skipCorrupt && skipped == 0 && missing > 0)
                {
                    // lost where nothing was seen damaged and no process's header line counts it: the end
                    skipped = 1;
                    damageLines.add(String.format(java.util.Locale.ROOT, "%s: the queue holds %,d references fewer "
                        + "than its header counts: its end is lost", shown, missing));
                }
                if (skipped > 0)
                {
                    skippedReferences = header.isComplete() ? Math.max(0, missing) : damage.referencesLost();
                }
            }
            else
            {
                skipped = skippedOrdinals.size();
                skippedReferences = header.isComplete() ? Math.max(0, header.longValue(TraceHeader.REFERENCES)
                    - references) : -1;
            }
            summary = new ReadSummary(isPartial(), live, excerpts, references, events, streams.size(), lastExcerpt,
                Math.max(0, lastTimeNs - origin), skipped, skippedReferences, unreadable,
                skipCorrupt || stopError == null ? List.copyOf(damageLines) : List.of());
        }

        /** The summary once delivery met blocks whose checksums match but whose items do not decode. */
        ReadSummary withLate()
        {
            final List<String> lines = new ArrayList<>(summary.damage());
            lines.addAll(late);
            return new ReadSummary(summary.partial(), summary.live(), summary.excerpts() - late.size(),
                summary.references() - lateReferences, summary.events(), summary.processes(), summary.lastExcerpt(),
                summary.lastTimeNs(), summary.skipped() + late.size(), summary.skippedReferences() < 0 ? -1
                : summary.skippedReferences() + lateReferences, summary.unreadable(), lines);
        }

        /** Throws the reason reading stopped, or a complete trace's shortfall against its header. */
        void verify()
        {
            if (stopError != null)
            {
                throw new TraceFormatException(stopError);
            }
            if (header.isComplete() && skipped == 0 && unreadable == null && late.isEmpty())
            {
                final long expected = header.longValue(TraceHeader.REFERENCES);
                if (references != expected)
                {
                    throw new TraceFormatException("truncated trace " + shown + ": the header counts " + expected
                        + " references but the queue holds " + references
                        + "; faultline reads what it holds with --skip-corrupt");
                }
            }
        }

        /** A block that the survey passed but that does not decode: a faulty writer's. */
        void decodeFailed(final BlockRef block, final String problem)
        {
            final String line = QueueDamage.describe(new QueueDamage.Region(block.file, block.start,
                block.start + block.length, block.ordinal, problem, block), shownFile(files.get(block.file)), origin);
            if (!skipCorrupt)
            {
                throw new TraceFormatException("corrupt trace " + shown + ": " + line
                    + "; faultline reads past it with --skip-corrupt");
            }
            late.add(line);
            lateReferences += block.records;
        }
    }

    /**
     * Every file of a format-4 queue, open for the blocks' reads while delivering, and the one
     * buffer and decoder every process's cursor reads and decodes its next block with, in turn:
     * a cursor keeps only its decoded block, so that a merge of many processes holds one block's
     * bytes and one decoder's buffers, not one each.
     */
    private static final class BlockFiles implements AutoCloseable
    {
        private final List<Path> files;
        private final FileChannel[] channels;
        final BlockDecoder decoder = new BlockDecoder();
        byte[] buffer = new byte[0];

        BlockFiles(final List<Path> files)
        {
            this.files = files;
            this.channels = new FileChannel[files.size()];
        }

        /** Reads block {@code b} into {@link #buffer}. */
        void read(final BlockRef b) throws IOException
        {
            if (buffer.length < b.length)
            {
                buffer = new byte[Math.max(b.length, buffer.length * 2)];
            }
            read(b.file, b.start, buffer, b.length);
        }

        void read(final int file, final long at, final byte[] into, final int count) throws IOException
        {
            if (channels[file] == null)
            {
                channels[file] = FileChannel.open(files.get(file), StandardOpenOption.READ);
            }
            final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(into, 0, count);
            while (b.hasRemaining())
            {
                if (channels[file].read(b, at + b.position()) < 0)
                {
                    throw new IOException("the queue file ends before the block");
                }
            }
        }

        @Override
        public void close()
        {
            decoder.close();
            for (final FileChannel c : channels)
            {
                if (c != null)
                {
                    try
                    {
                        c.close();
                    }
                    catch (final IOException ignored)
                    {
                        // read only
                    }
                }
            }
        }
    }

    /**
     * The items of one process, a batch (a block, or an older trace's excerpt) at a time: the
     * merge's unit. The head is the item not yet delivered.
     */
    private final class ProcessStream
    {
        final int pid;
        final int order;
        /** Format 4: the process's sound blocks, in queue order. */
        final List<BlockRef> blocks = new ArrayList<>();
        private int nextBlock;
        private BlockFiles files;
        /** Formats 1 to 3: a walk of the whole queue that keeps this process's excerpts. */
        private QueueScanner scanner;
        private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        private long ordinal = -1;
        private Survey survey;
        /** The batch being delivered: this stream's own, or one {@link #ahead} decoded. */
        ItemBatch batch = new ItemBatch();
        /** Where the blocks are decoded ahead of their delivery (one process alone), else null. */
        private DecodeAhead ahead;
        /** {@link #batch} is one {@link #ahead} decoded, to go back to it when done. */
        private boolean fromAhead;
        private int position;
        private boolean started;
        /** The survey's view of the last excerpt: its last item's seq and rank. */
        private long lastSeq;
        private int lastRank = -1;
        long headSeq;
        int headRank;
        long headTimeNs;
        /** Delivered times are less this: the program's start. */
        private long origin;
        /** Only references are delivered: blocks are decoded without their events. */
        private boolean referencesOnly;

        ProcessStream(final int pid, final int order)
        {
            this.pid = pid;
            this.order = order;
        }

        void add(final BlockRef block)
        {
            blocks.add(block);
            lastSeq = block.lastSeq;
            lastRank = block.lastRank();
        }

        /** Keeps only the blocks before {@code place} in the queue. */
        void cutAt(final long place)
        {
            blocks.removeIf(b -> b.place() >= place);
        }

        /** Null if the block's first item does not go back before this process's last one. */
        String goesBack(final BlockRef block)
        {
            return goesBack(block.firstSeq, block.firstRank(), false);
        }

        private String goesBack(final long seq, final int rank, final boolean moca)
        {
            final int c = Long.compareUnsigned(seq, lastSeq);
            if (lastRank >= 0 && (c < 0 || !moca && (c == 0 && rank < lastRank || c == 0 && rank == RECORD_RANK
                && lastRank == RECORD_RANK)))
            {
                return (moca ? "Moca chunk closed at seq " : "seq ") + Long.toUnsignedString(seq) + " of process " + pid
                    + " goes back before seq " + Long.toUnsignedString(lastSeq) + ", which the queue holds before it";
            }
            return null;
        }

        /** An older trace's excerpt: null if its first item does not go back before this process's last one. */
        String goesBack(final DirectBuffer e)
        {
            if (e.getInt(0, LE) == TraceLayout.EXCERPT_CHUNK && isMoca(e))
            {
                // placed at its interval's end, as an event is at the moment it happened
                return goesBack(e.getLong(KIND + ChunkDescriptor.MOCA_CLOSE_SEQ, LE), EVENT_RANK, true);
            }
            final boolean chunk = e.getInt(0, LE) == TraceLayout.EXCERPT_CHUNK;
            if (chunk && e.getInt(KIND + ChunkDescriptor.COUNT, LE) == 0)
            {
                return null;
            }
            return goesBack(chunk ? e.getLong(KIND + ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_SEQ, LE)
                : e.getLong(KIND + EventDescriptor.SEQ, LE), chunk ? RECORD_RANK : EVENT_RANK, false);
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

        void open(final Survey s, final BlockFiles blockFiles, final boolean events) throws IOException
        {
            survey = s;
            referencesOnly = !events;
            // from the start, whatever an earlier read of this reader left
            nextBlock = 0;
            ordinal = -1;
            position = 0;
            started = false;
            batch.size = 0;
            origin = s.origin;
            files = blockFiles;
            if (blockFiles == null)
            {
                // from the start, by the queue files' own framing
                scanner = new QueueScanner(queueDir);
            }
        }

        /** Moves to the next batch; false at the end of this process's part of the queue. */
        boolean nextBatch() throws IOException
        {
            position = 0;
            return files != null ? nextBlock() : nextExcerpt();
        }

        /** Reads the stream's blocks through {@link DecodeAhead} from now on, if it has threads. */
        void decodeAhead()
        {
            final int threads = DecodeAhead.threads();
            if (files != null && threads > 0 && blocks.size() > 1)
            {
                ahead = new DecodeAhead(blocks, survey.files, referencesOnly, threads);
            }
        }

        private boolean nextBlock() throws IOException
        {
            if (ahead != null)
            {
                return nextDecoded();
            }
            while (nextBlock < blocks.size())
            {
                final BlockRef b = blocks.get(nextBlock++);
                files.read(b);
                final byte[] buffer = files.buffer;
                final BlockDecoder decoder = files.decoder;
                if (!decoder.header(buffer, 0, b.length) || !decoder.body(buffer, 0, b.length))
                {
                    throw new TraceFormatException("trace " + shown + " changed while it was read: "
                        + shownFile(survey.files.get(b.file)) + " at byte " + b.start + ": " + decoder.problem());
                }
                if (!decoder.decode(buffer, 0, b.length, batch, referencesOnly))
                {
                    survey.decodeFailed(b, decoder.problem());
                    continue;
                }
                if (batch.size > 0)
                {
                    return true;
                }
            }
            return false;
        }

        /** {@link #nextBlock} from what {@link #ahead} decoded: each outcome met in its turn, as if decoded here. */
        private boolean nextDecoded() throws IOException
        {
            ItemBatch done = fromAhead ? batch : null;
            while (true)
            {
                final DecodeAhead.Decoded d = ahead.take(done);
                done = null;
                if (d == null)
                {
                    batch.size = 0;
                    return false;
                }
                final BlockRef b = d.block;
                if (d.changed != null)
                {
                    throw new TraceFormatException("trace " + shown + " changed while it was read: "
                        + shownFile(survey.files.get(b.file)) + " at byte " + b.start + ": " + d.changed);
                }
                if (d.undecodable != null)
                {
                    survey.decodeFailed(b, d.undecodable);
                    continue;
                }
                batch = d.batch;
                fromAhead = true;
                if (batch.size > 0)
                {
                    return true;
                }
                done = batch;
            }
        }

        private boolean nextExcerpt() throws IOException
        {
            final boolean filter = survey.streams.size() > 1;
            while (true)
            {
                if (ordinal + 1 >= Math.min(survey.brokenOrdinal, Math.min(survey.endOrdinal, survey.stopOrdinal)))
                {
                    return false;
                }
                final QueueScanner.Step step = scanner.next();
                if (step == QueueScanner.Step.END_OF_FILE && (scanner.endKind() == QueueScanner.EndKind.MARKER
                    || scanner.endKind() == QueueScanner.EndKind.LENGTH))
                {
                    continue;
                }
                if (step != QueueScanner.Step.DOCUMENT)
                {
                    return false;
                }
                ordinal++;
                if (survey.skippedOrdinals.contains(ordinal))
                {
                    continue;
                }
                view.wrap(scanner.bytes(), scanner.offset(), scanner.length());
                if (filter && scanner.length() >= 12)
                {
                    final int kind = view.getInt(0, LE);
                    final int owner = view.getInt(KIND + (kind == TraceLayout.EXCERPT_EVENT ? EventDescriptor.PID
                        : ChunkDescriptor.PID), LE);
                    if (owner != pid)
                    {
                        continue;
                    }
                }
                final String problem = ExcerptCheck.problem(view, scanner.length());
                if (problem != null)
                {
                    // the survey passed this excerpt: the queue changed under us
                    throw new TraceFormatException("trace " + shownFile(scanner.file()) + " changed while it was read: excerpt "
                        + ordinal + ": " + problem);
                }
                ExcerptItems.fill(view, scanner.length(), batch);
                if (batch.size == 0 || referencesOnly && !batch.isRecord(0))
                {
                    continue; // a reader of references alone is handed chunks of references only
                }
                return true;
            }
        }

        /** Moves the head to the next item; false at the end of this process's part of the queue. */
        boolean advance() throws IOException
        {
            if (started && position + 1 < batch.size)
            {
                position++;
                head();
                return true;
            }
            if (!nextBatch())
            {
                return false;
            }
            started = true;
            head();
            return true;
        }

        /** Whether item {@code i} of the batch comes before {@code other}'s head (HEAD_ORDER). */
        boolean before(final int i, final ProcessStream other)
        {
            int c = Long.compareUnsigned(batch.seq[i], other.headSeq);
            if (c == 0)
            {
                c = Integer.compare(batch.rank(i), other.headRank);
            }
            if (c == 0)
            {
                c = Long.compare(batch.time[i], other.headTimeNs);
            }
            return (c != 0 ? c : Integer.compare(order, other.order)) < 0;
        }

        /** Makes item {@code i} of the batch the head. */
        void moveTo(final int i)
        {
            position = i;
            head();
        }

        /** Moves the head to the next batch's first item; false at the end. */
        boolean advanceBatch() throws IOException
        {
            if (!nextBatch())
            {
                return false;
            }
            started = true;
            head();
            return true;
        }

        private void head()
        {
            headSeq = batch.seq[position];
            headRank = batch.rank(position);
            headTimeNs = batch.time[position];
        }

        /** Delivers the head. */
        void deliver(final TraceVisitor visitor, final boolean events)
        {
            deliverItem(visitor, events, position);
        }

        /** Delivers every item of the current batch (a single process: nothing to merge). */
        void deliverBatch(final TraceVisitor visitor, final boolean events)
        {
            final ItemBatch b = batch;
            final int n = b.size;
            final long o = origin;
            final int p = b.pid;
            for (int i = 0; i < n; i++)
            {
                if (b.kind[i] == ItemBatch.RECORD)
                {
                    final int f = b.flags[i];
                    visitor.onReference(b.seq[i], b.time[i] - o, p, b.tid[i], b.address[i],
                        (f & ChunkDescriptor.REC_WRITE) != 0, (f & ChunkDescriptor.REC_KERNEL) != 0, b.stack[i]);
                }
                else if (events)
                {
                    deliverItem(visitor, true, i);
                }
            }
        }

        private void deliverItem(final TraceVisitor visitor, final boolean events, final int i)
        {
            final ItemBatch b = batch;
            if (b.kind[i] == ItemBatch.RECORD)
            {
                final int f = b.flags[i];
                visitor.onReference(b.seq[i], b.time[i] - origin, b.pid, b.tid[i], b.address[i],
                    (f & ChunkDescriptor.REC_WRITE) != 0, (f & ChunkDescriptor.REC_KERNEL) != 0, b.stack[i]);
            }
            else if (!events)
            {
                return;
            }
            else if (b.kind[i] == ItemBatch.MOCA)
            {
                visitor.onMocaChunk(MocaChunk.read(new UnsafeBuffer(b.moca[i]), KIND, origin));
            }
            else if (b.flags[i] == EVICT && b.d[i] == 0 && b.text[i] == null)
            {
                visitor.onEviction(b.seq[i], b.time[i] - origin, b.pid, b.tid[i], b.address[i], b.b[i], b.c[i]);
            }
            else
            {
                final int code = b.flags[i];
                visitor.onEvent(new TraceEvent(code, EventType.of(code), b.pid, b.tid[i], b.seq[i], b.time[i] - origin,
                    b.address[i], b.b[i], b.c[i], b.d[i], b.text[i] == null ? "" : b.text[i]));
            }
        }

        void close()
        {
            if (ahead != null)
            {
                ahead.close();
                ahead = null;
            }
            if (scanner != null)
            {
                scanner.close();
                scanner = null;
            }
        }
    }

    private static final int EVICT = EventType.EVICT.code();

    /** A sound chunk excerpt in Moca's layout. */
    private static boolean isMoca(final DirectBuffer e)
    {
        return ChunkDescriptor.isMoca(e.getInt(KIND + ChunkDescriptor.FLAGS, LE));
    }

    /** An event excerpt of an older trace (u32 kind, then the event) as delivered. */
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
        if (cleanUp != null)
        {
            removeUnpacked(dir, cleanUp);
            cleanUp = null;
        }
    }
}
