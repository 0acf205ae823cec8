package io.faultline.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.faultline.format.TraceFormatException;
import io.faultline.format.TracePack;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceUpgrade;
import io.faultline.format.TraceWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline upgrade}: a trace of format 1 to 3 rewritten in format 4 ({@link TraceUpgrade}),
 * in place (a packed trace stays packed) or into {@code -o DIR}.
 */
@Command(name = "upgrade", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = "faultline upgrade [--skip-corrupt] [-o DIR] TRACE", descriptionHeading = "%n",
    description = {UpgradeCommand.SUMMARY, ""}, modelTransformer = UpgradeCommand.Wording.class)
final class UpgradeCommand implements Callable<Integer>
{
    /** What skipping means when the result is a trace. */
    static final class Wording extends OptionWording
    {
        @Override
        protected Object[][] getContents()
        {
            return new Object[][] {{"skip-corrupt", "leave corrupt excerpts out (the new trace is then marked incomplete)"}};
        }
    }

    static final String SUMMARY = "Rewrite a trace recorded by an older faultline (format 1 to 3: some 140 bytes a "
        + "reference) in format 4 (compact blocks with checksums): the same references and events, which every command "
        + "reads the same. Without -o the trace is replaced; a packed trace stays packed.";

    private static final String USAGE = "usage: faultline upgrade [--skip-corrupt] [-o DIR] TRACE";

    @Parameters(paramLabel = "TRACE", arity = "0..*", description = "a trace directory or packed trace of format 1 to 3")
    List<String> operands = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "DIR",
        description = "write the upgraded trace here (a new or empty directory) and keep TRACE as it is")
    Path output;

    @Mixin
    SkipCorrupt corrupt;

    private final PrintStream out;

    UpgradeCommand(final PrintStream out)
    {
        this.out = out;
    }

    @Override
    public Integer call() throws IOException
    {
        final Path trace = Path.of(TraceArguments.single(operands, "trace", USAGE));
        final boolean packed = Files.isRegularFile(trace);
        if (!Files.exists(trace))
        {
            throw new CliException("no trace at " + trace + ": no such file or directory", ExitStatus.ACCESS);
        }
        final Path target;
        Path work = null;
        if (output != null)
        {
            try
            {
                TraceWriter.checkUsable(output);
            }
            catch (final TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
            target = output;
        }
        else
        {
            // beside the trace, so that the rename at the end stays on its file system; named as
            // the trace, which names a packed trace's directory
            final String name = trace.toAbsolutePath().normalize().getFileName().toString();
            work = Files.createTempDirectory(trace.toAbsolutePath().normalize().getParent(), "." + name + ".upgrading-");
            target = work.resolve(packed && name.endsWith(TracePack.EXTENSION)
                ? name.substring(0, name.length() - TracePack.EXTENSION.length()) : name);
        }
        final TraceUpgrade.Result result;
        try
        {
            try (TraceReader reader = TraceArguments.open(trace.toString(), corrupt.skip))
            {
                result = TraceUpgrade.upgrade(reader, target);
            }
            catch (final TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
            if (work != null)
            {
                replace(trace, target, packed);
            }
        }
        finally
        {
            if (work != null)
            {
                TracePack.deleteTree(work);
            }
        }
        out.printf(Locale.ROOT, "upgraded %s from format %d to %d: %,d references and %,d events%s, %s now%n", trace,
            result.version(), io.faultline.format.TraceLayout.FORMAT_VERSION, result.references(), result.events(),
            result.skipped() == 0 ? "" : String.format(Locale.ROOT, " (%,d corrupt excerpt%s left out: the trace is "
                + "marked incomplete)", result.skipped(), result.skipped() == 1 ? "" : "s"),
            InfoCommand.bytes(output != null ? PackCommand.size(output) : packed ? Files.size(trace) : PackCommand.size(trace)));
        return result.skipped() == 0 ? 0 : ExitStatus.CORRUPT;
    }

    /** Puts the upgraded trace in the old one's place: a directory by renames, a packed trace packed again. */
    private static void replace(final Path trace, final Path upgraded, final boolean packed) throws IOException
    {
        final Path work = upgraded.getParent();
        if (packed)
        {
            final Path file = work.resolve("packed" + TracePack.EXTENSION);
            TracePack.pack(upgraded, file);
            Files.move(file, trace, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return;
        }
        final Path old = work.resolve("old");
        Files.move(trace, old, StandardCopyOption.ATOMIC_MOVE);
        Files.move(upgraded, trace, StandardCopyOption.ATOMIC_MOVE);
    }
}
