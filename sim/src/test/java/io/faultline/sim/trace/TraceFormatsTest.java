package io.faultline.sim.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceFormatsTest
{
    @TempDir
    Path tmp;

    private long[] read(final String format, final Path file, final TraceOptions options) throws IOException
    {
        return TraceFormats.read(TraceFormats.get(format), file, options).toArray();
    }

    private Path text(final String name, final Compression compression, final String content) throws IOException
    {
        return CompressedFiles.write(tmp, name, compression, content.getBytes(StandardCharsets.ISO_8859_1));
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void lirsSkipsCheckpointsAndBlankLines(final Compression compression) throws IOException
    {
        final Path file = text("lirs", compression, "5\n7\n*\n5\n\n18446744073709551615\n3");
        assertEquals(compression, detect(file));
        assertArrayEquals(new long[] {5, 7, 5, -1L, 3}, read("lirs", file, TraceOptions.defaults()));
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void libCacheSimTextReadsNumericIdsAndHashesOthers(final Compression compression) throws IOException
    {
        final Path file = text("lcs", compression, "42\n  43 \n/var/log/a\n42\n/var/log/a\r\n");
        final long hashed = LibCacheSimTextFormat.fnv1a("/var/log/a");
        assertArrayEquals(new long[] {42, 43, hashed, 42, hashed}, read("lcs-txt", file, TraceOptions.defaults()));
        // 64-bit FNV-1a of "a" from the reference (isthe.com/chongo/tech/comp/fnv): af63dc4c8601ec8c.
        assertEquals(0xaf63dc4c8601ec8cL, LibCacheSimTextFormat.fnv1a("a"));
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void libCacheSimOracleReadsTheIdOfEach24ByteRecord(final Compression compression) throws IOException
    {
        final ByteBuffer records = ByteBuffer.allocate(3 * 24).order(ByteOrder.LITTLE_ENDIAN);
        for (final long id : new long[] {9, 0x1122334455667788L, 9})
        {
            records.putInt(1000).putLong(id).putInt(4096).putLong(-1);
        }
        final Path file = CompressedFiles.write(tmp, "oracle", compression, records.array());
        assertArrayEquals(new long[] {9, 0x1122334455667788L, 9}, read("lcs-oracle", file, TraceOptions.defaults()));
    }

    @Test
    void libCacheSimOracleNamesATruncatedRecord() throws IOException
    {
        final Path file = tmp.resolve("short.bin");
        Files.write(file, new byte[24 + 10]);
        final TraceException ex = assertThrows(TraceException.class,
            () -> read("lcs-oracle", file, TraceOptions.defaults()));
        assertEquals(file + ": record 2 is truncated: 10 of 24 bytes (is this an oracleGeneral trace?)", ex.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void addressTraceKeysArePages(final Compression compression) throws IOException
    {
        final Path file = text("addr", compression, "s 0x1fffff58 1\nl 0x1fffff60 1\nl 0x00001000 6\nl 0xfff 2\n");
        assertArrayEquals(new long[] {0x1ffff, 0x1ffff, 1, 0}, read("address", file, TraceOptions.defaults()));
        assertArrayEquals(new long[] {0xfff, 0xfff, 0, 0}, read("address", file, TraceOptions.defaults().withPageSize(1 << 17)));
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void lackeyCountsBothPagesOfASplitAccessAndSkipsValgrindLines(final Compression compression) throws IOException
    {
        final Path file = text("lackey", compression, String.join("\n",
            "==12345== Lackey, an example Valgrind tool",
            "I  0400d7d4,8",
            " S 7ff000398,8",
            " L 04000ffc,8",
            " M 0421c7f0,4",
            "I  04001ffe,3",
            "==12345== "));
        assertArrayEquals(new long[] {0x400d, 0x7ff000, 0x4000, 0x4001, 0x421c, 0x4001, 0x4002},
            read("lackey", file, TraceOptions.defaults()));
        assertArrayEquals(new long[] {0x7ff000, 0x4000, 0x4001, 0x421c},
            read("lackey", file, TraceOptions.defaults().withoutInstructionFetches()));
    }

    @Test
    void malformedLineNamesFileLineAndText() throws IOException
    {
        final Path address = text("bad", Compression.GZIP, "l 0x10 1\n\ns 0xzz 1\n");
        final TraceException ex = assertThrows(TraceException.class,
            () -> read("address", address, TraceOptions.defaults()));
        assertEquals(address + ":3: expected the address as a hexadecimal number: 's 0xzz 1'", ex.getMessage());

        final Path lirs = text("bad", Compression.NONE, "1\n2\n" + "x".repeat(100) + "\n");
        final TraceException lirsEx = assertThrows(TraceException.class,
            () -> read("lirs", lirs, TraceOptions.defaults()));
        assertEquals(lirs + ":3: expected a block number as an unsigned decimal number: '" + "x".repeat(60) + "...'",
            lirsEx.getMessage());

        final Path lackey = text("bad", Compression.XZ, "I  0400d7d4,8\n X 0400d7d4,8\n");
        final TraceException lackeyEx = assertThrows(TraceException.class,
            () -> read("lackey", lackey, TraceOptions.defaults()));
        assertEquals(lackey + ":2: expected access kind 'I', 'L', 'S' or 'M': ' X 0400d7d4,8'", lackeyEx.getMessage());

        final Path fields = text("bad", Compression.ZSTD, "l 0x10\n");
        final TraceException fieldsEx = assertThrows(TraceException.class,
            () -> read("address", fields, TraceOptions.defaults()));
        assertEquals(fields + ":1: expected 3 fields 'l|s ADDRESS COUNT', found 2: 'l 0x10'", fieldsEx.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void emptyTraceIsAnError(final Compression compression) throws IOException
    {
        final Path file = text("empty", compression, "\n*\n");
        final TraceException ex = assertThrows(TraceException.class, () -> read("lirs", file, TraceOptions.defaults()));
        assertEquals(file + ": the trace holds no reference (format lirs)", ex.getMessage());
    }

    @Test
    void corruptCompressedDataIsATraceError() throws IOException
    {
        final Path file = tmp.resolve("corrupt.gz");
        Files.write(file, new byte[] {0x1f, (byte)0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3});
        final TraceException ex = assertThrows(TraceException.class, () -> read("lirs", file, TraceOptions.defaults()));
        assertTrue(ex.getMessage().startsWith("cannot read " + file + " as lirs: "), ex.getMessage());
    }

    /**
     * Inputs ImportFormatsFuzzTest found: zstd frames whose decoder threw unchecked exceptions
     * (an ArrayIndexOutOfBoundsException in its Huffman tables, a MalformedInputException), and a
     * gzip stream cut short, whose EOFException has no message; each is one line in words.
     */
    @Test
    void corruptZstdAndCutGzipAreOneLineTraceErrors() throws IOException
    {
        final String huffman = "28b52ffd64701f5d040012040e101018c0050097e79728b52ffd64701f5d040012040e18c0050097e7977dec"
            + "cbe1c7dedc3ff1be905cf2813079df79b89df9ace5d17cf6f0b325d21f84fffd75525e0ba36de05ec15018079228012100c00402"
            + "38c2c63f371decc3192e8bd37fb8b8feb315108360fb7f88285dd0c3d006a18202f416ce229925dd08500100003074200578616502"
            + "801190807c4320311401c0c16060903118180c3c0024bcbcbd17";
        final Path lcs = Files.write(tmp.resolve("huffman.zst"), java.util.HexFormat.of().parseHex(huffman));
        assertEquals("cannot read " + lcs + " as lcs: corrupt data (malformed zstd data)",
            assertThrows(TraceException.class, () -> read("lcs", lcs, TraceOptions.defaults())).getMessage());
        final Path block = Files.write(tmp.resolve("block.zst"),
            java.util.HexFormat.of().parseHex("28b52ffd28b52ffd2408410000310a320a310a330a6b1b36bc"));
        assertEquals("cannot read " + block + " as lirs: corrupt data (malformed zstd data: invalid block type)",
            assertThrows(TraceException.class, () -> read("lirs", block, TraceOptions.defaults())).getMessage());
        final Path cut = Files.write(tmp.resolve("cut.gz"), new byte[] {0x1f, (byte)0x8b});
        assertEquals("cannot read " + cut + " as lirs: corrupt data (it ends too soon)",
            assertThrows(TraceException.class, () -> read("lirs", cut, TraceOptions.defaults())).getMessage());
    }

    @Test
    void unknownFormatListsTheKnownOnes()
    {
        final TraceException ex = assertThrows(TraceException.class, () -> TraceFormats.get("xml"));
        assertEquals("unknown trace format 'xml'; known formats: faultline, lirs, lcs-txt, lcs-oracle, lcs, address, lackey, csv, kvmtrace",
            ex.getMessage());
    }

    @Test
    void aFileNeedsItsFormatNamedAndADirectoryIsAFaultlineTrace() throws IOException
    {
        final Path file = text("plain", Compression.NONE, "1\n");
        final TraceException ex = assertThrows(TraceException.class, () -> TraceFormats.resolve(file, Optional.empty()));
        assertEquals("cannot tell the format of " + file + "; give --format, one of: "
            + "faultline, lirs, lcs-txt, lcs-oracle, lcs, address, lackey, csv, kvmtrace", ex.getMessage());
        assertEquals("faultline", TraceFormats.resolve(tmp, Optional.empty()).name());
        assertEquals("lirs", TraceFormats.resolve(file, Optional.of("lirs")).name());
        final TraceException missing = assertThrows(TraceException.class,
            () -> TraceFormats.resolve(tmp.resolve("nope"), Optional.of("lirs")));
        assertTrue(missing.getMessage().startsWith("no such trace: "), missing.getMessage());
    }

    @Test
    void referenceTracesReadWithTheirPublishedCounts() throws IOException
    {
        final long[] cloud = SharedTraces.read("lcs-txt", SharedTraces.cloudPhysicsIO());
        assertEquals(113_872, cloud.length);
        assertEquals(48_974, java.util.Arrays.stream(cloud).distinct().count());
        // The gzip trace is gzip-compressed; the reader must have found that from its magic bytes.
        final long[] gzip = SharedTraces.read("address", SharedTraces.addressGzip());
        assertEquals(481_044, gzip.length);
        assertEquals(0x1fffff58L >>> 12, gzip[0]);
        assertEquals(39_856, java.util.Arrays.stream(gzip).distinct().count());
    }

    private static Compression detect(final Path file) throws IOException
    {
        try (var in = new java.io.BufferedInputStream(Files.newInputStream(file)))
        {
            return Compression.detect(in);
        }
    }
}
