package io.faultline.sweep.traces;

import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A trace's keys as a sweep's tasks read them: one file, streamed whole from any file system
 * Spark's Hadoop layer reads, where a faultline trace is a Chronicle Queue directory that only a
 * memory map of the machine that recorded it reads in order. The driver writes one per trace
 * ({@link Staging}); each task streams it into an array and replays.
 *
 * <p>Layout, big-endian ({@link DataOutputStream}):
 * <pre>
 *   header   "FLKEYS01"  page size (int)  references (long)  EVMS pages (int)  name length (int)  name (UTF-8)
 *   frame*   references n &gt; 0 (int)  compressed length (int)  encoded length (int)  zstd block
 *   end      0 (int)
 *   index    per frame: offset of its first byte (long), references (int)
 *   footer   offset of the index (long)  frames (int)  "FLKEYIDX"
 * </pre>
 * A frame holds up to {@link #FRAME_REFERENCES} keys, each the zigzag varint of its difference
 * from the frame's previous key (0 before the first), compressed by zstd (RFC 8878) on its own:
 * page numbers of one program cluster, so most take one or two bytes before compression. Frames
 * on their own make the file seekable: the footer's index gives each frame's offset, so a reader
 * can start at any frame ({@link #readFrames}) without decoding what comes before.
 */
public final class KeysFile
{
    /** The conventional extension of a staged trace. */
    public static final String EXTENSION = ".keys";
    static final byte[] MAGIC = "FLKEYS01".getBytes(StandardCharsets.US_ASCII);
    static final byte[] INDEX_MAGIC = "FLKEYIDX".getBytes(StandardCharsets.US_ASCII);
    /** Keys per frame: 1 Mi, 8 MiB of longs decoded at a time, a few MiB compressed. */
    public static final int FRAME_REFERENCES = 1 << 20;
    private static final int FOOTER_LENGTH = 8 + 4 + 8;
    private static final int LONGEST_VARINT = 10;

    private KeysFile()
    {
    }

    /**
     * What the header says.
     *
     * @param name       the trace's name, as reports show it (its file name)
     * @param pageSize   bytes per page of the keys
     * @param references keys in the file
     * @param evmsPages  pages of the EVMS that reduced the trace, 0 if none
     */
    public record Header(String name, int pageSize, long references, int evmsPages)
    {
    }

    /** Whether {@code head}, the first bytes of a file, are those of a keys file. */
    public static boolean isKeysFile(final byte[] head, final int length)
    {
        return length >= MAGIC.length && Arrays.equals(head, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    /** Writes {@code keys} under {@code header} to {@code out}, which it does not close. */
    public static void write(final Header header, final long[] keys, final OutputStream out) throws IOException
    {
        write(header, keys, out, FRAME_REFERENCES);
    }

    /** {@link #write(Header, long[], OutputStream)} in frames of {@code frameReferences} keys (tests: small ones). */
    static void write(final Header header, final long[] keys, final OutputStream out, final int frameReferences)
        throws IOException
    {
        final CountingOutput counted = new CountingOutput(out);
        final DataOutputStream data = new DataOutputStream(counted);
        data.write(MAGIC);
        data.writeInt(header.pageSize());
        data.writeLong(keys.length);
        data.writeInt(header.evmsPages());
        final byte[] name = header.name().getBytes(StandardCharsets.UTF_8);
        data.writeInt(name.length);
        data.write(name);

        final int frames = (keys.length + frameReferences - 1) / frameReferences;
        final long[] offsets = new long[frames];
        final int[] counts = new int[frames];
        final ZstdCompressor compressor = new ZstdCompressor();
        final byte[] encoded = new byte[Math.min(keys.length, frameReferences) * LONGEST_VARINT];
        final byte[] compressed = new byte[compressor.maxCompressedLength(encoded.length)];
        for (int frame = 0; frame < frames; frame++)
        {
            final int from = frame * frameReferences;
            final int to = Math.min(keys.length, from + frameReferences);
            final int length = encode(keys, from, to, encoded);
            final int packed = compressor.compress(encoded, 0, length, compressed, 0, compressed.length);
            data.flush();
            offsets[frame] = counted.count;
            counts[frame] = to - from;
            data.writeInt(to - from);
            data.writeInt(packed);
            data.writeInt(length);
            data.write(compressed, 0, packed);
        }
        data.writeInt(0);
        data.flush();
        final long indexOffset = counted.count;
        for (int frame = 0; frame < frames; frame++)
        {
            data.writeLong(offsets[frame]);
            data.writeInt(counts[frame]);
        }
        data.writeLong(indexOffset);
        data.writeInt(frames);
        data.write(INDEX_MAGIC);
        data.flush();
    }

    /** Reads the header of the stream {@code in}, leaving it at the first frame. */
    public static Header readHeader(final DataInputStream in, final String source) throws IOException
    {
        final byte[] magic = new byte[MAGIC.length];
        if (in.readNBytes(magic, 0, magic.length) < magic.length || !Arrays.equals(magic, MAGIC))
        {
            throw new IOException(source + " is not a staged trace (no FLKEYS01 header); stage it with faultline sweep");
        }
        final int pageSize = in.readInt();
        final long references = in.readLong();
        final int evmsPages = in.readInt();
        final int nameLength = in.readInt();
        if (pageSize <= 0 || references < 0 || references > Integer.MAX_VALUE - 8 || nameLength < 0 || nameLength > 4096)
        {
            throw new IOException(source + ": corrupt header (page size " + pageSize + ", " + references
                + " references, name of " + nameLength + " bytes)");
        }
        final byte[] name = new byte[nameLength];
        in.readFully(name);
        return new Header(new String(name, StandardCharsets.UTF_8), pageSize, references, evmsPages);
    }

    /** Streams the whole file: every key, in order. */
    public static long[] readAll(final InputStream stream, final String source) throws IOException
    {
        final DataInputStream in = new DataInputStream(stream);
        final Header header = readHeader(in, source);
        final long[] keys = new long[(int)header.references()];
        final ZstdDecompressor decompressor = new ZstdDecompressor();
        byte[] compressed = new byte[0];
        byte[] encoded = new byte[0];
        int at = 0;
        try
        {
            for (int n = in.readInt(); n > 0; n = in.readInt())
            {
                final int packed = in.readInt();
                final int length = in.readInt();
                if (n > FRAME_REFERENCES || at + n > keys.length || packed < 0 || length < 0
                    || length > n * LONGEST_VARINT)
                {
                    throw new IOException(source + ": corrupt frame at reference " + at);
                }
                if (compressed.length < packed)
                {
                    compressed = new byte[packed];
                }
                if (encoded.length < length)
                {
                    encoded = new byte[length];
                }
                in.readFully(compressed, 0, packed);
                decompress(decompressor, compressed, packed, encoded, length, source, at);
                decode(encoded, length, keys, at, n, source);
                at += n;
            }
        }
        catch (final EOFException ex)
        {
            throw new IOException(source + ": truncated after " + at + " of " + header.references() + " references");
        }
        if (at != keys.length)
        {
            throw new IOException(source + ": " + at + " references where the header says " + header.references());
        }
        return keys;
    }

    /**
     * The keys of frames {@code first} to {@code first + count - 1}, found through the index
     * without reading the frames before them.
     */
    public static long[] readFrames(final SeekableByteChannel channel, final int first, final int count,
        final String source) throws IOException
    {
        final ByteBuffer footer = ByteBuffer.allocate(FOOTER_LENGTH);
        readAt(channel, channel.size() - FOOTER_LENGTH, footer, source);
        final long indexOffset = footer.getLong(0);
        final int frames = footer.getInt(8);
        final byte[] magic = new byte[INDEX_MAGIC.length];
        footer.get(12, magic);
        if (!Arrays.equals(magic, INDEX_MAGIC) || first < 0 || count < 0 || first + count > frames)
        {
            throw new IOException(source + ": no frames " + first + ".." + (first + count - 1) + " (of " + frames
                + ") in its index");
        }
        final ByteBuffer entry = ByteBuffer.allocate(12);
        readAt(channel, indexOffset + 12L * first, entry, source);
        final long start = entry.getLong(0);
        int total = 0;
        for (int frame = first; frame < first + count; frame++)
        {
            readAt(channel, indexOffset + 12L * frame, entry.clear(), source);
            total += entry.getInt(8);
        }
        final long[] keys = new long[total];
        final ZstdDecompressor decompressor = new ZstdDecompressor();
        long position = start;
        int at = 0;
        for (int frame = first; frame < first + count; frame++)
        {
            final ByteBuffer head = ByteBuffer.allocate(12);
            readAt(channel, position, head, source);
            final int n = head.getInt(0);
            final int packed = head.getInt(4);
            final int length = head.getInt(8);
            final ByteBuffer compressed = ByteBuffer.allocate(packed);
            readAt(channel, position + 12, compressed, source);
            final byte[] encoded = new byte[length];
            decompress(decompressor, compressed.array(), packed, encoded, length, source, at);
            decode(encoded, length, keys, at, n, source);
            at += n;
            position += 12 + packed;
        }
        return keys;
    }

    private static void readAt(final SeekableByteChannel channel, final long position, final ByteBuffer buffer,
        final String source) throws IOException
    {
        channel.position(position);
        while (buffer.hasRemaining())
        {
            if (channel.read(buffer) < 0)
            {
                throw new IOException(source + ": truncated at byte " + channel.position());
            }
        }
        buffer.flip();
    }

    private static void decompress(final ZstdDecompressor decompressor, final byte[] compressed, final int packed,
        final byte[] encoded, final int length, final String source, final int at) throws IOException
    {
        final int got;
        try
        {
            got = decompressor.decompress(compressed, 0, packed, encoded, 0, length);
        }
        catch (final RuntimeException ex)
        {
            throw new IOException(source + ": corrupt frame at reference " + at + " (" + ex.getMessage() + ")");
        }
        if (got != length)
        {
            throw new IOException(source + ": frame at reference " + at + " decompressed to " + got + " bytes, not "
                + length);
        }
    }

    /** Zigzag varints of the differences between consecutive keys of {@code keys[from..to)}. */
    static int encode(final long[] keys, final int from, final int to, final byte[] out)
    {
        int at = 0;
        long previous = 0;
        for (int i = from; i < to; i++)
        {
            final long delta = keys[i] - previous;
            previous = keys[i];
            long zigzag = (delta << 1) ^ (delta >> 63);
            while ((zigzag & ~0x7FL) != 0)
            {
                out[at++] = (byte)((zigzag & 0x7F) | 0x80);
                zigzag >>>= 7;
            }
            out[at++] = (byte)zigzag;
        }
        return at;
    }

    static void decode(final byte[] in, final int length, final long[] keys, final int from, final int count,
        final String source) throws IOException
    {
        int at = 0;
        long previous = 0;
        for (int i = from; i < from + count; i++)
        {
            long zigzag = 0;
            int shift = 0;
            byte b;
            do
            {
                if (at >= length || shift > 63)
                {
                    throw new IOException(source + ": corrupt keys at reference " + i);
                }
                b = in[at++];
                zigzag |= (long)(b & 0x7F) << shift;
                shift += 7;
            }
            while (b < 0);
            previous += (zigzag >>> 1) ^ -(zigzag & 1);
            keys[i] = previous;
        }
        if (at != length)
        {
            throw new IOException(source + ": " + (length - at) + " bytes left over in the frame ending at reference "
                + (from + count));
        }
    }

    /** Counts bytes written, for the index's offsets. */
    private static final class CountingOutput extends OutputStream
    {
        private final OutputStream out;
        long count;

        CountingOutput(final OutputStream out)
        {
            this.out = out;
        }

        @Override
        public void write(final int b) throws IOException
        {
            out.write(b);
            count++;
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException
        {
            out.write(b, off, len);
            count += len;
        }

        @Override
        public void flush() throws IOException
        {
            out.flush();
        }
    }
}
