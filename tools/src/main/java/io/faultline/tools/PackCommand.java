package io.faultline.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import io.faultline.format.TraceFormatException;
import io.faultline.format.TracePack;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline pack} and {@code unpack}: a trace in one file and back ({@link TracePack}).
 * Every command that reads a trace reads the packed file as it reads the directory.
 */
final class PackCommand
{
    private PackCommand()
    {
    }

    @Command(name = "pack", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        synopsisHeading = "usage: ", customSynopsis = "faultline pack [-f] [-o FILE] TRACE_DIR", descriptionHeading = "%n",
        description = {Pack.SUMMARY, ""})
    static final class Pack implements Callable<Integer>
    {
        /** What {@code faultline --help} lists for this command: the first line of its description. */
        static final String SUMMARY = "Write a trace into one file (a zstd-compressed tar, FILE.flt) that every command "
            + "reads as it reads the directory; tar --zstd -xf FILE.flt gives the directory back.";

        private static final String USAGE = "usage: faultline pack [-f] [-o FILE] TRACE_DIR";

        @Parameters(paramLabel = "TRACE_DIR", arity = "0..*", description = "a trace directory written by faultline record")
        List<String> operands = new ArrayList<>();

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "the packed trace (default: TRACE_DIR.flt)")
        Path output;

        @Option(names = {"-f", "--force"}, description = "replace FILE if it exists")
        boolean force;

        private final PrintStream out;

        Pack(final PrintStream out)
        {
            this.out = out;
        }

        @Override
        public Integer call() throws IOException
        {
            final Path dir = Path.of(TraceArguments.single(operands, USAGE));
            if (Files.isRegularFile(dir))
            {
                throw new CliException(dir + " is a file, not a trace directory; faultline unpack unpacks a packed trace");
            }
            final Path file = output != null ? output
                : Path.of(dir.toAbsolutePath().normalize() + TracePack.EXTENSION);
            if (Files.exists(file) && !force)
            {
                throw new CliException("output " + file + " exists; choose another -o, or give --force to replace it");
            }
            if (Files.isDirectory(file))
            {
                throw new CliException("output " + file + " is a directory; choose a file for -o");
            }
            try (TraceReader reader = TraceArguments.open(dir.toString(), false))
            {
                // the header's checks: a trace (not a monitoring record), of a version this faultline reads
                reader.header();
            }
            final long contents = size(dir);
            final long size;
            try
            {
                size = TracePack.pack(dir, file);
            }
            catch (final TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
            out.printf(Locale.ROOT, "packed %s (%s in its files) into %s: %s%n", dir, InfoCommand.bytes(contents), file,
                InfoCommand.bytes(size));
            return 0;
        }
    }

    @Command(name = "unpack", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        synopsisHeading = "usage: ", customSynopsis = "faultline unpack [-f] [-o DIR] FILE", descriptionHeading = "%n",
        description = {Unpack.SUMMARY, ""})
    static final class Unpack implements Callable<Integer>
    {
        /** What {@code faultline --help} lists for this command: the first line of its description. */
        static final String SUMMARY = "Unpack a packed trace (written by faultline pack) into a trace directory.";

        private static final String USAGE = "usage: faultline unpack [-f] [-o DIR] FILE";

        @Parameters(paramLabel = "FILE", arity = "0..*", description = "a packed trace written by faultline pack")
        List<String> operands = new ArrayList<>();

        @Option(names = {"-o", "--output"}, paramLabel = "DIR",
            description = "a new or empty directory (default: FILE without .flt)")
        Path output;

        @Option(names = {"-f", "--force"}, description = "replace the trace DIR holds (never anything else)")
        boolean force;

        private final PrintStream out;

        Unpack(final PrintStream out)
        {
            this.out = out;
        }

        @Override
        public Integer call() throws IOException
        {
            final Path file = Path.of(TraceArguments.single(operands, "packed trace", USAGE));
            if (Files.isDirectory(file))
            {
                throw new CliException(file + " is a directory, a trace already; every command reads it as it is");
            }
            if (!Files.exists(file))
            {
                throw new CliException("no packed trace at " + file + ": no such file or directory", ExitStatus.ACCESS);
            }
            if (!TracePack.isPack(file))
            {
                throw new CliException(file + " is not a packed trace (a zstd-compressed tar written by faultline pack); "
                    + "give a file written by faultline pack");
            }
            final String name = file.getFileName().toString();
            final Path dir = output != null ? output : file.resolveSibling(name.endsWith(TracePack.EXTENSION)
                ? name.substring(0, name.length() - TracePack.EXTENSION.length()) : name + ".trace");
            try
            {
                if (force)
                {
                    TraceWriter.removeTrace(dir, "-o");
                }
                else if (Files.isDirectory(dir) && TraceWriter.holdsTrace(dir))
                {
                    throw new CliException("output " + dir + " already holds a trace; choose another -o, or give --force"
                        + " to replace it");
                }
                TraceWriter.checkUsable(dir);
                TracePack.unpack(file, dir);
            }
            catch (final TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
            out.printf(Locale.ROOT, "unpacked %s into %s (%s)%n", file, dir, InfoCommand.bytes(size(dir)));
            return 0;
        }
    }

    /** The lengths of a trace directory's files, in all: what a copy without holes takes. */
    static long size(final Path dir) throws IOException
    {
        long length = 0;
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>)walk::iterator)
            {
                if (Files.isRegularFile(p))
                {
                    length += Files.size(p);
                }
            }
        }
        return length;
    }
}
