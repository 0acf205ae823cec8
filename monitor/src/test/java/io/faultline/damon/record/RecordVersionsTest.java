package io.faultline.damon.record;

import java.nio.file.Path;
import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Version 2 added scheme blocks where version 1 had a reserved 0: a version 1 record (written
 * before schemes existed: the same bytes, format_version=1) reads as one without schemes, and
 * scheme statistics written in version 2 read back as written.
 */
class RecordVersionsTest
{
    @TempDir
    Path tmp;

    private static final List<Snapshot.TargetRegions> TARGETS = List.of(new Snapshot.TargetRegions(7,
        List.of(new Snapshot.RegionRecord(0, 8192, 3, 1))));

    private Path write(final String name, final Snapshot snapshot, final int version) throws Exception
    {
        final Path dir = tmp.resolve(name);
        try (MonitorRecordWriter writer = MonitorRecordWriter.create(dir,
            MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096)))
        {
            writer.write(snapshot);
            writer.finish(MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096)
                .put(TraceHeader.FORMAT_VERSION, version));
        }
        return dir;
    }

    @Test
    void versionOneReadsWithoutSchemes() throws Exception
    {
        final Path dir = write("v1", new Snapshot(0, 0, 100, TARGETS), 1);
        assertEquals("1", TraceHeader.read(dir.resolve(TraceLayout.HEADER_FILE)).get(TraceHeader.FORMAT_VERSION));
        final List<Snapshot> snapshots = MonitorRecordReader.open(dir).snapshots();
        assertEquals(List.of(new Snapshot(0, 0, 100, TARGETS)), snapshots);
        assertTrue(snapshots.get(0).schemes().isEmpty());
    }

    @Test
    void schemeStatisticsReadBackAsWritten() throws Exception
    {
        final List<Snapshot.SchemeRecord> schemes = List.of(
            new Snapshot.SchemeRecord(1, 2, 3, 4, 5, 6, 7, 8, true),
            new Snapshot.SchemeRecord(9, 10, 11, 12, 13, 14, 0, Long.MAX_VALUE, false));
        final Snapshot written = new Snapshot(0, 0, 100, TARGETS, schemes);
        assertEquals(List.of(written), MonitorRecordReader.open(write("v2", written, 2)).snapshots());
    }

    @Test
    void laterVersionsAreRefused() throws Exception
    {
        final Path dir = write("v3", new Snapshot(0, 0, 100, TARGETS), 3);
        assertEquals("monitoring record " + dir + " has format version 3 but this faultline reads versions 1 to 2;"
            + " use a matching faultline", assertThrows(TraceFormatException.class,
                () -> MonitorRecordReader.open(dir)).getMessage());
    }
}
