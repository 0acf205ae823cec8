package io.faultline.sim.trace;

import io.airlift.compress.MalformedInputException;
import io.airlift.compress.zstd.ZstdInputStream;
import io.airlift.compress.zstd.ZstdOutputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZInputStream;
import org.tukaani.xz.XZOutputStream;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Opens a trace file, decompressing it if its first bytes are the magic number of gzip, xz or
 * zstd, whatever its name; creates an exported one compressed as its name's extension asks
 * (.gz, .xz, .zst). Done here once so that no reader or writer knows about compression.
 */
public enum Compression
{
    NONE(new byte[0], ""),
    /** RFC 1952: 1f 8b. */
    GZIP(new byte[] {0x1f, (byte)0x8b}, ".gz"),
    /** xz file format 1.0.4, stream header magic: fd '7zXZ' 00. */
    XZ(new byte[] {(byte)0xfd, '7', 'z', 'X', 'Z', 0x00}, ".xz"),
    /** RFC 8878 frame magic 0xFD2FB528, little-endian. */
    ZSTD(new byte[] {0x28, (byte)0xb5, 0x2f, (byte)0xfd}, ".zst");

    private static final int BUFFER_SIZE = 1 << 16;
    private static final int LONGEST_MAGIC = 6;

    private final byte[] magic;
    private final String extension;

    Compression(final byte[] magic, final String extension)
    {
        this.magic = magic;
        this.extension = extension;
    }

    /** The compression {@code file}'s name asks for: .gz, .xz or .zst, else none. */
    public static Compression byExtension(final Path file)
    {
        final String name = file.getFileName() == null ? "" : file.getFileName().toString();
        for (final Compression compression : values())
        {
            if (compression != NONE && name.endsWith(compression.extension))
            {
                return compression;
            }
        }
        return NONE;
    }

    /** Creates or truncates {@code file}; what is written to the stream is compressed as its extension asks. */
    public static OutputStream create(final Path file) throws IOException
    {
        final OutputStream raw = Files.newOutputStream(file);
        try
        {
            return byExtension(file).compress(raw);
        }
        catch (final IOException | RuntimeException ex)
        {
            raw.close();
            throw ex;
        }
    }

    /** {@code out}, compressed this way and buffered; closing it finishes the compressed stream. */
    public OutputStream compress(final OutputStream out) throws IOException
    {
        return new BufferedOutputStream(switch (this)
        {
            case NONE -> out;
            case GZIP -> new GZIPOutputStream(out, BUFFER_SIZE);
            // Preset 6, xz(1)'s default.
            case XZ -> new XZOutputStream(out, new LZMA2Options());
            case ZSTD -> new ZstdOutputStream(out);
        }, BUFFER_SIZE);
    }

    /** The decompressed content of {@code file}. */
    public static InputStream open(final Path file) throws IOException
    {
        final BufferedInputStream raw = new BufferedInputStream(Files.newInputStream(file), BUFFER_SIZE);
        try
        {
            final Compression compression = detect(raw);
            return switch (compression)
            {
                case NONE -> raw;
                case GZIP -> new BufferedInputStream(new GZIPInputStream(raw, BUFFER_SIZE), BUFFER_SIZE);
                case XZ -> new BufferedInputStream(new XZInputStream(raw), BUFFER_SIZE);
                case ZSTD -> new BufferedInputStream(new CheckedZstd(new ZstdInputStream(raw)), BUFFER_SIZE);
            };
        }
        catch (final IOException | RuntimeException ex)
        {
            raw.close();
            throw ex;
        }
    }

    /** Peeks at the first bytes of {@code in}, which must support mark, and leaves it unread. */
    public static Compression detect(final InputStream in) throws IOException
    {
        final byte[] head = new byte[LONGEST_MAGIC];
        in.mark(LONGEST_MAGIC);
        final int n = in.readNBytes(head, 0, head.length);
        in.reset();
        for (final Compression compression : values())
        {
            if (compression != NONE && compression.matches(head, n))
            {
                return compression;
            }
        }
        return NONE;
    }

    private boolean matches(final byte[] head, final int length)
    {
        if (length < magic.length)
        {
            return false;
        }
        for (int i = 0; i < magic.length; i++)
        {
            if (head[i] != magic[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * aircompressor's zstd decoder, whose errors on corrupt data are unchecked and of any class
     * (MalformedInputException, and an ArrayIndexOutOfBoundsException in its Huffman tables that
     * ImportFormatsFuzzTest found), as the IOException every other decompressor throws.
     */
    private static final class CheckedZstd extends FilterInputStream
    {
        CheckedZstd(final InputStream in)
        {
            super(in);
        }

        @Override
        public int read() throws IOException
        {
            try
            {
                return super.read();
            }
            catch (final RuntimeException ex)
            {
                throw corrupt(ex);
            }
        }

        @Override
        public int read(final byte[] b, final int off, final int len) throws IOException
        {
            try
            {
                return super.read(b, off, len);
            }
            catch (final RuntimeException ex)
            {
                throw corrupt(ex);
            }
        }

        private static IOException corrupt(final RuntimeException ex)
        {
            // "Bad checksum. Expected: a320a31, actual: 51d8e999: offset=29": its first sentence
            final String message = ex instanceof MalformedInputException && ex.getMessage() != null
                ? ex.getMessage().split("\\. |: offset=", 2)[0] : "";
            return new IOException(message.isEmpty() ? "malformed zstd data"
                : "malformed zstd data: " + Character.toLowerCase(message.charAt(0)) + message.substring(1), ex);
        }
    }
}
