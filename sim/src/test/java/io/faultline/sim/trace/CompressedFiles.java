package io.faultline.sim.trace;

import io.airlift.compress.zstd.ZstdOutputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Writes test traces plain or compressed, under names that do not reveal the compression. */
final class CompressedFiles
{
    private CompressedFiles()
    {
    }

    static Path write(final Path dir, final String name, final Compression compression, final byte[] content)
        throws IOException
    {
        final Path file = dir.resolve(name + "." + compression.name().toLowerCase() + ".trace");
        try (OutputStream raw = Files.newOutputStream(file); OutputStream out = wrap(compression, raw))
        {
            out.write(content);
        }
        return file;
    }

    private static OutputStream wrap(final Compression compression, final OutputStream raw) throws IOException
    {
        return switch (compression)
        {
            case NONE -> new NonClosing(raw);
            case GZIP -> new GZIPOutputStream(raw);
            case XZ -> new XZOutputStream(raw, new LZMA2Options());
            case ZSTD -> new ZstdOutputStream(raw);
        };
    }

    private static final class NonClosing extends java.io.FilterOutputStream
    {
        NonClosing(final OutputStream out)
        {
            super(out);
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException
        {
            out.write(b, off, len);
        }
    }
}
