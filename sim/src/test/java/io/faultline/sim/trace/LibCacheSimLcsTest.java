package io.faultline.sim.trace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The bytes of an lcs v2 export, pinned: libCacheSim's lcsReader (traceReader/customizedReader/lcs.c
 * at 0e3e2d31c7a8, built on this machine) read these very bytes as 4 requests of 4096 bytes,
 * op 12 (read) and 13 (write), tenants 11 and 12, next access 3 then none, and printed
 * "n_read 2, n_write 2", "#tenant: 2", "11(0.7500) 12(0.2500)".
 */
class LibCacheSimLcsTest
{
    @TempDir
    Path tmp;

    /**
     * Pages 1, 2, 1, 3 at 0.5 s, 1.2 s, 2.0 s and 3.9 s: read by 11, written by 12, written and read by 11;
     * process 0, whose keys are the page numbers themselves (PageKey), so that the pinned bytes are
     * those libCacheSim read.
     */
    private static byte[] export() throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ExportFormat.Writer writer = ExportFormats.get("lcs").open(out, 4096);
        writer.reference(0, 500_000_000L, 0, 11, 0x1000, false);
        writer.reference(1, 1_200_000_000L, 0, 12, 0x2008, true);
        writer.reference(2, 2_000_000_000L, 0, 11, 0x1ff8, true);
        writer.reference(3, 3_900_000_000L, 0, 11, 0x3000, false);
        writer.finish();
        return out.toByteArray();
    }

    @Test
    void version2RecordsCarryTheOperationAndTheThreadAsTenant() throws IOException
    {
        final byte[] bytes = export();
        assertEquals(8192 + 4 * 28, bytes.length);
        // clock_time, obj_id, obj_size, op | tenant << 8, next_access_vtime; little-endian
        final String records = ""
            + "00000000" + "0100000000000000" + "00100000" + "0c0b0000" + "0300000000000000"
            + "01000000" + "0200000000000000" + "00100000" + "0d0c0000" + "ffffffffffffffff"
            + "02000000" + "0100000000000000" + "00100000" + "0d0b0000" + "ffffffffffffffff"
            + "03000000" + "0300000000000000" + "00100000" + "0c0b0000" + "ffffffffffffffff";
        assertEquals(records, HexFormat.of().formatHex(bytes, 8192, bytes.length));

        final ByteBuffer header = ByteBuffer.wrap(bytes, 0, 8192).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] expected = new byte[8192];
        final ByteBuffer fields = ByteBuffer.wrap(expected).order(ByteOrder.LITTLE_ENDIAN);
        fields.putLong(0, 0x123456789abcdef0L).putLong(8, 2).putLong(8184, 0x123456789abcdef0L);
        final int stat = 16;
        fields.putLong(stat, 1)            // stat version
            .putLong(stat + 8, 4)          // n_req
            .putLong(stat + 16, 3)         // n_obj
            .putLong(stat + 24, 16384)     // n_req_byte
            .putLong(stat + 32, 12288)     // n_obj_byte
            .putLong(stat + 40, 0)         // start_timestamp
            .putLong(stat + 48, 3)         // end_timestamp
            .putLong(stat + 56, 2)         // n_read
            .putLong(stat + 64, 2)         // n_write
            .putLong(stat + 80, 4096)      // smallest_obj_size
            .putLong(stat + 88, 4096)      // largest_obj_size
            .putLong(stat + 96, 4096)      // most_common_obj_sizes[0]
            .putFloat(stat + 224, 1.0f)    // most_common_obj_size_ratio[0]
            .putInt(stat + 552, 2)         // n_tenant
            .putInt(stat + 556, 11)        // most_common_tenants[0]
            .putInt(stat + 560, 12)
            .putFloat(stat + 620, 0.75f)   // most_common_tenant_ratio[0]
            .putFloat(stat + 624, 0.25f)
            .putInt(stat + 684, 1)         // n_ttl (every ttl 0)
            .putFloat(stat + 760, 1.0f);   // most_common_ttl_ratio[0]
        assertEquals(HexFormat.of().formatHex(expected), HexFormat.of().formatHex(header.array(), 0, 8192));
    }

    @Test
    void readsBackToThePages() throws IOException
    {
        final Path file = Files.write(tmp.resolve("t.lcs"), export());
        assertArrayEquals(new long[] {1, 2, 1, 3},
            TraceFormats.read(TraceFormats.get("lcs"), file, TraceOptions.defaults()).toArray());
    }

    @Test
    void aFileWithoutTheHeaderIsNamed() throws IOException
    {
        final Path file = Files.write(tmp.resolve("t.oracle"), new byte[48]);
        final TraceException ex = assertThrows(TraceException.class,
            () -> TraceFormats.read(TraceFormats.get("lcs"), file, TraceOptions.defaults()));
        assertEquals(file + " is not an lcs trace: it does not start with libCacheSim's 8192-byte lcs header (magic "
            + "0x123456789abcdef0); give its format with --format", ex.getMessage());
    }
}
