package io.faultline.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.faultline.sim.trace.Compression;
import io.faultline.sim.trace.ExportFormat;
import io.faultline.sim.trace.ExportFormats;
import io.faultline.sim.trace.TraceException;
import io.faultline.sim.trace.TraceFormat;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceOptions;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Every file format {@code simulate}, {@code mrc} and {@code report reuse} import (--format),
 * fed arbitrary bytes and mutated valid files, plain and compressed: each read gives a trace or
 * one line naming the problem ({@link Bounded}). The faultline directory format has its own
 * fuzzer (FaultlineTraceFuzzTest). Tries: junit-platform.properties, or
 * -Djqwik.tries.default=N (bench/fuzz.sh).
 */
class ImportFormatsFuzzTest
{
    private static final Path DIR = tempDir();

    /** A valid file of each format, four references (two pages, a write) from two threads. */
    private static final Map<String, byte[]> SEEDS = seeds();

    private static Path tempDir()
    {
        try
        {
            return Files.createTempDirectory("faultline-fuzz-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @AfterContainer
    static void removeFiles() throws IOException
    {
        try (var files = Files.walk(DIR))
        {
            for (final Path file : files.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(file);
            }
        }
    }

    private static Map<String, byte[]> seeds()
    {
        final Map<String, byte[]> seeds = new LinkedHashMap<>();
        for (final String name : List.of("lcs-oracle", "lcs", "lcs-txt", "lirs", "csv"))
        {
            seeds.put(name, export(name));
        }
        // a reduced trace holds evictions, which an export of references alone does not make
        seeds.put("kvmtrace", "r 500000000 7 0x1\nW 1200000000 7 0x2\nw 2000000000 8 0x1\nR 3900000000 7 0x3\n"
            .getBytes(StandardCharsets.US_ASCII));
        seeds.put("address", "l 0x7ff000398 1\ns 0x601040 2\nl 0x7ff001000 1\n".getBytes(StandardCharsets.US_ASCII));
        seeds.put("lackey", "I  0400d7d4,8\n S 7ff000398,8\n L 04222cac,8\n M 0421c7ff,4\n"
            .getBytes(StandardCharsets.US_ASCII));
        return seeds;
    }

    private static byte[] export(final String name)
    {
        try
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ExportFormat.Writer writer = ExportFormats.get(name).open(out, 4096);
            writer.reference(0, 500_000_000L, 7, 11, 0x1000, false);
            writer.reference(1, 1_200_000_000L, 7, 12, 0x2008, true);
            writer.reference(2, 2_000_000_000L, 7, 11, 0x1ff8, true);
            writer.reference(3, 3_900_000_000L, 7, 11, 0x3000, false);
            writer.finish();
            return out.toByteArray();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Provide
    Arbitrary<String> formats()
    {
        return Arbitraries.of(TraceFormats.all().stream().map(TraceFormat::name)
            .filter(name -> !name.equals(TraceFormats.FAULTLINE)).toList());
    }

    @Provide
    Arbitrary<List<Mutation>> mutations()
    {
        return Mutation.several(4);
    }

    @Property
    void everyFormatReadsArbitraryBytesOrSaysWhyNot(@ForAll("formats") final String format,
        @ForAll final byte[] bytes, @ForAll final Compression compression) throws IOException
    {
        read(format, compress(bytes, compression), compression);
    }

    @Property
    void everyFormatReadsMutatedFilesOrSaysWhyNot(@ForAll("formats") final String format,
        @ForAll("mutations") final List<Mutation> mutations, @ForAll final Compression compression,
        @ForAll final boolean afterCompression) throws IOException
    {
        final byte[] seed = SEEDS.get(format);
        final byte[] bytes = afterCompression ? Mutation.applyAll(mutations, compress(seed, compression))
            : compress(Mutation.applyAll(mutations, seed), compression);
        read(format, bytes, compression);
    }

    /** Every seed reads as the four references it holds: a mutation fuzzer needs valid seeds. */
    @Property(tries = 1)
    void theSeedsAreValid() throws IOException
    {
        for (final Map.Entry<String, byte[]> seed : SEEDS.entrySet())
        {
            final Path file = Files.write(DIR.resolve("seed"), seed.getValue());
            final int size = TraceFormats.read(TraceFormats.get(seed.getKey()), file, TraceOptions.defaults()).size();
            if (size < 3)
            {
                throw new AssertionError(seed.getKey() + " seed reads as " + size + " references");
            }
        }
    }

    private static void read(final String format, final byte[] bytes, final Compression compression) throws IOException
    {
        final Path file = Files.write(DIR.resolve("input"), bytes);
        try
        {
            Bounded.check(format + " (" + compression + ", " + bytes.length + " bytes)", bytes.length,
                TraceException.class, () -> TraceFormats.read(TraceFormats.get(format), file, TraceOptions.defaults()));
        }
        catch (final AssertionError finding)
        {
            Bounded.keep(format, bytes);
            throw finding;
        }
    }

    private static byte[] compress(final byte[] bytes, final Compression compression) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream compressed = compression.compress(out))
        {
            compressed.write(bytes);
        }
        return out.toByteArray();
    }
}
