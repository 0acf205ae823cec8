package io.faultline.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.record.MonitorRecordWriter;
import io.faultline.damon.record.Snapshot;
import io.faultline.damon.record.Snapshot.RegionRecord;
import io.faultline.damon.record.Snapshot.TargetRegions;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;
import io.faultline.sim.trace.FaultlineTraces;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The directory readers, the trace reader (trace-format) and the monitoring-record reader
 * (monitor), fed a valid directory damaged in place: its header as arbitrary or mutated text,
 * a queue file's written bytes flipped, overwritten with runs, or cut short ({@link
 * QueueDirectory}). Each read gives its records or one line naming the problem ({@link Bounded}).
 */
class TraceReaderFuzzTest
{
    private static final Path ROOT = tempDir();

    /** Two processes, three threads, 40 references over 6 excerpts. */
    private static final QueueDirectory TRACE = trace();

    /** Two aggregations of two processes' regions. */
    private static final QueueDirectory RECORD = record();

    private static Path tempDir()
    {
        try
        {
            return Files.createTempDirectory("faultline-fuzz-dirs-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static QueueDirectory trace()
    {
        try
        {
            final long[][] chunks = new long[6][];
            for (int c = 0; c < chunks.length; c++)
            {
                chunks[c] = new long[2 + 7];
                chunks[c][0] = 100 + c % 2;
                chunks[c][1] = 200 + c % 3;
                for (int i = 2; i < chunks[c].length; i++)
                {
                    chunks[c][i] = 0x10000L + 0x1000L * ((c * 7 + i) % 11) + i;
                }
            }
            return new QueueDirectory(FaultlineTraces.write(ROOT.resolve("trace"), 4096, chunks));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static QueueDirectory record()
    {
        final Path dir = ROOT.resolve("record");
        try (MonitorRecordWriter writer = MonitorRecordWriter.create(dir,
            MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096)))
        {
            writer.write(new Snapshot(0, 0, 100_000_000, List.of(
                new TargetRegions(7, List.of(new RegionRecord(0x10000, 0x14000, 10, 0))),
                new TargetRegions(9, List.of(new RegionRecord(0x1000, 0x2000, 3, 2))))));
            writer.write(new Snapshot(1, 100_000_000, 200_000_000, List.of(
                new TargetRegions(7, List.of(new RegionRecord(0x10000, 0x12000, 20, 0),
                    new RegionRecord(0x12000, 0x14000, 0, 1))),
                new TargetRegions(9, List.of(new RegionRecord(0x1000, 0x2000, 4, 3))))));
            writer.finish(MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096));
            return new QueueDirectory(dir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @AfterContainer
    static void removeFiles() throws IOException
    {
        try (var files = Files.walk(ROOT))
        {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(file);
            }
        }
    }

    @Provide
    Arbitrary<List<Mutation>> mutations()
    {
        return Mutation.several(4);
    }

    @Property
    void aDamagedTraceReadsOrSaysWhyNot(@ForAll final int file, @ForAll("mutations") final List<Mutation> mutations,
        @ForAll final boolean skipCorrupt) throws IOException
    {
        try
        {
            final long bytes = TRACE.damage(file, mutations);
            check("trace", TRACE, bytes, () -> readTrace(skipCorrupt));
        }
        finally
        {
            TRACE.restore();
        }
    }

    @Property
    void aTraceWithAnArbitraryHeaderReadsOrSaysWhyNot(@ForAll final byte[] header) throws IOException
    {
        try
        {
            Files.write(TRACE.dir().resolve(TraceLayout.HEADER_FILE), header);
            check("trace", TRACE, header.length, () -> readTrace(false));
        }
        finally
        {
            TRACE.restore();
        }
    }

    @Property
    void aDamagedMonitoringRecordReadsOrSaysWhyNot(@ForAll final int file,
        @ForAll("mutations") final List<Mutation> mutations) throws IOException
    {
        try
        {
            final long bytes = RECORD.damage(file, mutations);
            check("monitoring record", RECORD, bytes, TraceReaderFuzzTest::readRecord);
        }
        finally
        {
            RECORD.restore();
        }
    }

    @Property(tries = 1)
    void theSeedsAreValid() throws Exception
    {
        readTrace(false);
        readRecord();
    }

    private static void readTrace(final boolean skipCorrupt)
    {
        try (TraceReader reader = TraceReader.open(TRACE.dir(), skipCorrupt))
        {
            reader.forEach(new TraceVisitor()
            {
                @Override
                public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                    final long address, final boolean write)
                {
                }
            });
        }
    }

    private static void readRecord()
    {
        final MonitorRecordReader reader = MonitorRecordReader.open(RECORD.dir());
        reader.attributes();
        reader.snapshots();
    }

    private static void check(final String what, final QueueDirectory dir, final long bytes, final Bounded.Read read)
        throws IOException
    {
        try
        {
            Bounded.check(what, bytes, TraceFormatException.class, read);
        }
        catch (final AssertionError finding)
        {
            // the damaged directory, for its regression test
            final Path kept = Path.of("target", "fuzz-findings", what.replace(' ', '-') + "-"
                + Integer.toHexString(finding.getMessage().hashCode()));
            try (var files = Files.walk(dir.dir()))
            {
                for (final Path f : files.toList())
                {
                    final Path to = kept.resolve(dir.dir().relativize(f).toString());
                    if (Files.isDirectory(f))
                    {
                        Files.createDirectories(to);
                    }
                    else if (Files.size(f) < (16 << 20))
                    {
                        Files.copy(f, to);
                    }
                }
            }
            catch (final IOException ignored)
            {
                // the assertion reports the finding anyway
            }
            throw finding;
        }
    }
}
