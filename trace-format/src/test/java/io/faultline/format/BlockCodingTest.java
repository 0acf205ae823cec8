package io.faultline.format;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

import com.github.luben.zstd.ZstdCompressCtx;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A block holds exactly what its writer was handed (FORMAT.md, "Blocks"): every field of every
 * reference and event, Moca chunks byte for byte, whatever the values (seq and time going
 * back, addresses anywhere, unknown record flags, evictions that cannot be coded compactly,
 * evictions of pages in and out of the resident list), and a reader of references alone gets
 * the same references without reading the events. A block whose checksums match but whose
 * items do not agree with its header is refused.
 */
class BlockCodingTest
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int PID = 4242;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1 << 16]);

    /** What was handed, one line an item, as the decoder's items read back. */
    private final List<String> handed = new ArrayList<>();

    private void chunk(final BlockEncoder e, final int tid, final long[] seq, final long[] time, final long[] address,
        final int[] flags, final int[] stack)
    {
        buffer.setMemory(0, ChunkDescriptor.HEADER_SIZE, (byte)0);
        buffer.putInt(ChunkDescriptor.PID, PID, LE);
        buffer.putInt(ChunkDescriptor.TID, tid, LE);
        buffer.putInt(ChunkDescriptor.COUNT, seq.length, LE);
        for (int i = 0; i < seq.length; i++)
        {
            final int r = ChunkDescriptor.recordOffset(i);
            buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, seq[i], LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, time[i], LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, address[i], LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS, flags[i], LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_STACK, stack[i], LE);
            handed.add("R " + seq[i] + " " + time[i] + " " + tid + " " + Long.toHexString(address[i]) + " " + flags[i]
                + " " + stack[i]);
        }
        e.addChunk(buffer, 0, ChunkDescriptor.length(seq.length));
    }

    private void event(final BlockEncoder e, final int type, final int tid, final long seq, final long time, final long a,
        final long b, final long c, final long d, final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        buffer.setMemory(0, EventDescriptor.HEADER_SIZE, (byte)0);
        buffer.putInt(EventDescriptor.TYPE, type, LE);
        buffer.putInt(EventDescriptor.PID, PID, LE);
        buffer.putInt(EventDescriptor.TID, tid, LE);
        buffer.putInt(EventDescriptor.TEXT_LENGTH, bytes.length, LE);
        buffer.putLong(EventDescriptor.SEQ, seq, LE);
        buffer.putLong(EventDescriptor.TIME_NS, time, LE);
        buffer.putLong(EventDescriptor.A, a, LE);
        buffer.putLong(EventDescriptor.B, b, LE);
        buffer.putLong(EventDescriptor.C, c, LE);
        buffer.putLong(EventDescriptor.D, d, LE);
        buffer.putBytes(EventDescriptor.HEADER_SIZE, bytes);
        handed.add("E " + type + " " + seq + " " + time + " " + tid + " " + a + " " + b + " " + c + " " + d + " " + text);
        e.addEvent(buffer, 0, EventDescriptor.HEADER_SIZE + bytes.length);
    }

    private static List<String> lines(final ItemBatch batch)
    {
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < batch.size; i++)
        {
            if (batch.kind[i] == ItemBatch.RECORD)
            {
                lines.add("R " + batch.seq[i] + " " + batch.time[i] + " " + batch.tid[i] + " "
                    + Long.toHexString(batch.address[i]) + " " + batch.flags[i] + " " + batch.stack[i]);
            }
            else if (batch.kind[i] == ItemBatch.EVENT)
            {
                lines.add("E " + batch.flags[i] + " " + batch.seq[i] + " " + batch.time[i] + " " + batch.tid[i] + " "
                    + batch.address[i] + " " + batch.b[i] + " " + batch.c[i] + " " + batch.d[i] + " "
                    + (batch.text[i] == null ? "" : batch.text[i]));
            }
            else
            {
                lines.add("M " + batch.seq[i] + " " + batch.time[i] + " " + batch.moca[i].length);
            }
        }
        return lines;
    }

    /** Encodes what was handed into one block and decodes it both ways. */
    private byte[] roundTrip(final BlockEncoder e)
    {
        final BlockEncoder.Output out = new BlockEncoder.Output();
        try (ZstdCompressCtx zstd = BlockEncoder.compressor(); BlockDecoder decoder = new BlockDecoder())
        {
            assertTrue(e.block(out, zstd, new CRC32C()));
            final byte[] block = java.util.Arrays.copyOf(out.bytes, out.length);
            assertTrue(decoder.header(block, 0, block.length), decoder.problem());
            assertTrue(decoder.body(block, 0, block.length), decoder.problem());
            final ItemBatch batch = new ItemBatch();
            assertTrue(decoder.decode(block, 0, block.length, batch, false), decoder.problem());
            assertEquals(PID, batch.pid);
            assertEquals(handed, lines(batch));
            assertTrue(decoder.decode(block, 0, block.length, batch, true), decoder.problem());
            assertEquals(handed.stream().filter(l -> l.startsWith("R ")).toList(), lines(batch),
                "the references alone, without the events' columns");
            return block;
        }
    }

    @Test
    void randomStreamsReadBackFieldForField()
    {
        for (int seed = 0; seed < 200; seed++)
        {
            handed.clear();
            final Random random = new Random(seed);
            final BlockEncoder e = new BlockEncoder(PID);
            long seq = random.nextInt(1000);
            long time = random.nextInt(1_000_000);
            long address = 0x7f0000000000L + random.nextInt(1 << 20) * 4096L;
            final List<Long> pages = new ArrayList<>();
            final int items = 1 + random.nextInt(3000);
            for (int i = 0; i < items; i++)
            {
                final int what = random.nextInt(20);
                final int tid = 1 + random.nextInt(random.nextBoolean() ? 1 : 40) + (random.nextInt(50) == 0 ? 1 << 20 : 0);
                if (what < 9)
                {
                    final int n = 1 + random.nextInt(4);
                    final long[] s = new long[n];
                    final long[] t = new long[n];
                    final long[] a = new long[n];
                    final int[] f = new int[n];
                    final int[] st = new int[n];
                    for (int k = 0; k < n; k++)
                    {
                        // seq is the next tick, or later (other processes' ticks); never back (FORMAT.md, "Order")
                        seq += random.nextInt(8) == 0 ? random.nextInt(1_000_000) : 0;
                        time += random.nextInt(10) == 0 ? -random.nextInt(5000) : random.nextInt(50_000);
                        address = random.nextInt(10) == 0 ? random.nextLong() : address + (random.nextInt(64) - 16) * 4096L
                            + random.nextInt(4096);
                        s[k] = seq++;
                        t[k] = time;
                        a[k] = address;
                        f[k] = random.nextInt(30) == 0 ? random.nextInt() : random.nextInt(8);
                        st[k] = random.nextInt(3) == 0 ? random.nextInt() : 0;
                        pages.add(address >>> 12);
                    }
                    chunk(e, tid, s, t, a, f, st);
                }
                else if (what < 17)
                {
                    // an eviction: mostly of the oldest page, else of some page, else of one never brought in
                    final long page = pages.isEmpty() || random.nextInt(6) == 0 ? random.nextLong() >>> 13
                        : pages.remove(random.nextInt(4) == 0 ? random.nextInt(pages.size()) : 0);
                    final long tag = random.nextInt(40) == 0 ? 'x' : "rwRW".charAt(random.nextInt(4));
                    time += random.nextInt(500);
                    seq += random.nextInt(10) == 0 ? 3 : 0;
                    event(e, EventType.EVICT.code(), tid, seq, time,
                        page << 12 | (random.nextInt(40) == 0 ? 8 : 0), tag, random.nextInt(40) == 0 ? 7 : random.nextInt(2),
                        random.nextInt(40) == 0 ? 1 : 0, "");
                }
                else
                {
                    time += random.nextInt(500);
                    seq += random.nextInt(3);
                    event(e, 1 + random.nextInt(40), tid, seq, time, random.nextLong(),
                        random.nextLong(), random.nextInt(), -1, random.nextBoolean() ? "" : "päth/" + random.nextInt());
                }
            }
            roundTrip(e);
        }
    }

    @Test
    void mocaChunksAreKeptWhole()
    {
        final BlockEncoder e = new BlockEncoder(PID);
        event(e, EventType.THREAD_START.code(), 7, 0, 5, 1, 2, 3, 4, "");
        final int count = 3;
        final int length = (int)ChunkDescriptor.length(ChunkDescriptor.MOCA, count);
        buffer.setMemory(0, length, (byte)0);
        buffer.putInt(ChunkDescriptor.PID, PID, LE);
        buffer.putInt(ChunkDescriptor.TID, 7, LE);
        buffer.putLong(ChunkDescriptor.CHUNK_ID, 9, LE);
        buffer.putInt(ChunkDescriptor.COUNT, count, LE);
        buffer.putInt(ChunkDescriptor.FLAGS, ChunkDescriptor.MOCA, LE);
        buffer.putLong(ChunkDescriptor.MOCA_START_SEQ, 10, LE);
        buffer.putLong(ChunkDescriptor.MOCA_END_SEQ, 13, LE);
        buffer.putLong(ChunkDescriptor.MOCA_CLOSE_SEQ, 20, LE);
        buffer.putLong(ChunkDescriptor.MOCA_CLOSE_NS, 900, LE);
        for (int i = 0; i < count; i++)
        {
            final int r = ChunkDescriptor.recordOffset(ChunkDescriptor.MOCA, i);
            buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, 10 + i, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, 100 + i, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, 0x1000 * (i + 1), LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_MOCA_READS, i + 1, LE);
        }
        final byte[] original = new byte[length];
        buffer.getBytes(0, original);
        e.addChunk(buffer, 0, length);
        handed.add("M 20 900 " + (length + TraceLayout.EXCERPT_KIND_SIZE));
        final byte[] block = roundTrip(e);
        final ItemBatch batch = new ItemBatch();
        try (BlockDecoder decoder = new BlockDecoder())
        {
            assertTrue(decoder.decode(block, 0, block.length, batch, false));
        }
        assertEquals(java.util.Arrays.toString(original), java.util.Arrays.toString(java.util.Arrays.copyOfRange(
            batch.moca[1], TraceLayout.EXCERPT_KIND_SIZE, batch.moca[1].length)));
    }

    @Test
    void aFifoEvictionTakesOneByteAndAReferenceAFew()
    {
        // a scan through 4,096 pages with an EVMS of 512: every eviction is of the oldest page
        final BlockEncoder e = new BlockEncoder(PID);
        for (int i = 0; i < 4096; i++)
        {
            chunk(e, 77, new long[] {i}, new long[] {i * 20_000L}, new long[] {0x7f0000000000L + i * 4096L},
                new int[] {1}, new int[] {0});
            if (i >= 512)
            {
                event(e, EventType.EVICT.code(), 77, i + 1, i * 20_000L + 150, 0x7f0000000000L + (i - 512) * 4096L, 'w', 0,
                    0, "");
            }
        }
        final byte[] block = roundTrip(e);
        assertTrue(block.length < 4096 * 2, "a scan's 4,096 references and 3,584 evictions in " + block.length + " bytes");
    }

    /** A block rewritten with a header that says otherwise of its items, its checksums made right again. */
    @Test
    void aBlockWhoseItemsDisagreeWithItsHeaderIsRefused()
    {
        final BlockEncoder e = new BlockEncoder(PID);
        chunk(e, 5, new long[] {1, 2}, new long[] {10, 20}, new long[] {0x1000, 0x2000}, new int[] {0, 1}, new int[] {0, 0});
        final byte[] block = roundTrip(e);
        final UnsafeBuffer h = new UnsafeBuffer(block);
        h.putLong(BlockDescriptor.LAST_SEQ, 3, LE);
        final CRC32C crc = new CRC32C();
        crc.update(block, BlockDescriptor.BODY_CRC, BlockDescriptor.HEADER_SIZE - BlockDescriptor.BODY_CRC);
        h.putInt(BlockDescriptor.HEADER_CRC, (int)crc.getValue(), LE);
        try (BlockDecoder decoder = new BlockDecoder())
        {
            assertTrue(decoder.header(block, 0, block.length));
            assertTrue(decoder.body(block, 0, block.length));
            assertFalse(decoder.decode(block, 0, block.length, new ItemBatch(), false));
            assertEquals("its checksums match but its items are not what its header says of them; a faulty writer "
                + "wrote it", decoder.problem());
            h.putInt(0, 0, LE);
            assertFalse(decoder.header(block, 0, block.length));
            assertEquals("it does not begin as a block does", decoder.problem());
        }
    }
}
