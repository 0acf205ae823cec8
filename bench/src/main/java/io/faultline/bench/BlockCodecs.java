package io.faultline.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import io.faultline.format.BlockDescriptor;

/**
 * How the compression of format-4 blocks was chosen (BENCHMARKS.md, "Compact traces"): the
 * blocks of the traces given, their columns as the writer codes them before compression,
 * compressed again each way, each column alone or all columns of a block as one frame, with
 * aircompressor's pure-Java zstd and lz4, and zstd-jni at levels 1, 3 and 6; bytes a reference
 * (blocks' headers and directories not counted) and the CPU of this thread per reference to
 * compress and, best of 9, to decompress.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.faultline.bench.BlockCodecs TRACE...</pre>
 */
public final class BlockCodecs
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private BlockCodecs()
    {
    }

    /** One way to compress a byte array: compress into a new array; decompress into dst. */
    private interface Codec
    {
        byte[] compress(byte[] raw);

        void decompress(byte[] packed, byte[] dst, int rawLength);
    }

    public static void main(final String[] args) throws Exception
    {
        System.out.println("trace,codec,frames,bytes_per_ref,compress_ns_per_ref,decompress_ns_per_ref");
        for (final String arg : args)
        {
            final Path trace = Path.of(arg);
            final List<byte[][]> blocks = new ArrayList<>();
            final long references = columns(trace, blocks);
            final ZstdCompressor airZ = new ZstdCompressor();
            final ZstdDecompressor airZd = new ZstdDecompressor();
            final Lz4Compressor airL = new Lz4Compressor();
            final Lz4Decompressor airLd = new Lz4Decompressor();
            run(trace, "aircompressor-zstd", references, blocks, new Codec()
            {
                public byte[] compress(final byte[] raw)
                {
                    final byte[] out = new byte[airZ.maxCompressedLength(raw.length)];
                    return Arrays.copyOf(out, airZ.compress(raw, 0, raw.length, out, 0, out.length));
                }

                public void decompress(final byte[] packed, final byte[] dst, final int rawLength)
                {
                    airZd.decompress(packed, 0, packed.length, dst, 0, rawLength);
                }
            });
            run(trace, "aircompressor-lz4", references, blocks, new Codec()
            {
                public byte[] compress(final byte[] raw)
                {
                    final byte[] out = new byte[airL.maxCompressedLength(raw.length)];
                    return Arrays.copyOf(out, airL.compress(raw, 0, raw.length, out, 0, out.length));
                }

                public void decompress(final byte[] packed, final byte[] dst, final int rawLength)
                {
                    airLd.decompress(packed, 0, packed.length, dst, 0, rawLength);
                }
            });
            for (final int level : new int[] {1, 3, 6})
            {
                final ZstdCompressCtx c = new ZstdCompressCtx();
                c.setLevel(level);
                final ZstdDecompressCtx d = new ZstdDecompressCtx();
                run(trace, "zstd-jni-" + level, references, blocks, new Codec()
                {
                    public byte[] compress(final byte[] raw)
                    {
                        return c.compress(raw);
                    }

                    public void decompress(final byte[] packed, final byte[] dst, final int rawLength)
                    {
                        d.decompressByteArray(dst, 0, rawLength, packed, 0, packed.length);
                    }
                });
                c.close();
                d.close();
            }
        }
    }

    /** Compresses every block both ways (each column alone; one frame of all) and prints what it took. */
    private static void run(final Path trace, final String name, final long references, final List<byte[][]> blocks,
        final Codec codec)
    {
        for (final boolean alone : new boolean[] {true, false})
        {
            final List<byte[]> raws = new ArrayList<>();
            for (final byte[][] columns : blocks)
            {
                if (alone)
                {
                    raws.addAll(Arrays.asList(columns));
                }
                else
                {
                    final int n = Arrays.stream(columns).mapToInt(c -> c.length).sum();
                    final ByteBuffer all = ByteBuffer.allocate(n);
                    Arrays.stream(columns).forEach(all::put);
                    raws.add(all.array());
                }
            }
            final List<byte[]> packed = new ArrayList<>();
            long bytes = 0;
            final long c0 = THREADS.getCurrentThreadCpuTime();
            for (final byte[] raw : raws)
            {
                // as the writer does: a column is kept as it is where compressing does not shrink it
                final byte[] p = raw.length < 64 ? raw : codec.compress(raw);
                packed.add(p.length < raw.length ? p : null);
                bytes += Math.min(p.length, raw.length);
            }
            final long compress = THREADS.getCurrentThreadCpuTime() - c0;
            final byte[] dst = new byte[raws.stream().mapToInt(r -> r.length).max().orElse(0)];
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 9; round++)
            {
                final long d0 = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < raws.size(); i++)
                {
                    if (packed.get(i) != null)
                    {
                        codec.decompress(packed.get(i), dst, raws.get(i).length);
                    }
                }
                best = Math.min(best, THREADS.getCurrentThreadCpuTime() - d0);
            }
            System.out.printf(Locale.ROOT, "%s,%s,%s,%.2f,%.0f,%.1f%n", trace.getFileName(), name,
                alone ? "column" : "block", bytes / (double)references, compress / (double)references,
                best / (double)references);
        }
    }

    /** Each block's eight columns before compression; returns the trace's references. */
    private static long columns(final Path trace, final List<byte[][]> blocks) throws Exception
    {
        final Path file;
        try (Stream<Path> files = Files.list(trace.resolve("queue")))
        {
            file = files.filter(p -> p.toString().endsWith(".cq4")).sorted().findFirst().orElseThrow();
        }
        final ByteBuffer bytes;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            bytes = ByteBuffer.allocate((int)channel.size()).order(ByteOrder.LITTLE_ENDIAN);
            while (bytes.hasRemaining() && channel.read(bytes) > 0)
            {
                // whole file
            }
        }
        long references = 0;
        int at = 0;
        // Chronicle's documents: a u32 word (bit 31 not complete, bit 30 metadata, the rest the length)
        while (at + 4 <= bytes.limit())
        {
            final int word = bytes.getInt(at);
            if (word == 0 || word < 0)
            {
                break;
            }
            final int length = word & 0x3fffffff;
            if ((word & 0x40000000) == 0 && bytes.getInt(at + 4) == BlockDescriptor.MAGIC)
            {
                references += bytes.getInt(at + 4 + BlockDescriptor.RECORDS);
                blocks.add(decode(bytes, at + 4 + BlockDescriptor.HEADER_SIZE));
            }
            at = (at + 4 + length + 3) & ~3;
        }
        return references;
    }

    private static byte[][] decode(final ByteBuffer bytes, final int body)
    {
        int p = body;
        final long[][] directory = new long[BlockDescriptor.COLUMNS][2];
        for (int c = 0; c < BlockDescriptor.COLUMNS; c++)
        {
            for (int k = 0; k < 2; k++)
            {
                long v = 0;
                int shift = 0;
                int b;
                do
                {
                    b = bytes.get(p++);
                    v |= (long)(b & 0x7f) << shift;
                    shift += 7;
                }
                while (b < 0);
                directory[c][k] = v;
            }
        }
        final byte[][] columns = new byte[BlockDescriptor.COLUMNS][];
        for (int c = 0; c < BlockDescriptor.COLUMNS; c++)
        {
            final int raw = (int)directory[c][0];
            final int stored = (int)directory[c][1];
            final byte[] in = new byte[stored];
            bytes.get(p, in);
            p += stored;
            columns[c] = stored == raw ? in : Zstd.decompress(in, raw);
        }
        return columns;
    }
}
