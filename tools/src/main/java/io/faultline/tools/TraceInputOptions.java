package io.faultline.tools;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.Locale;
import java.util.Optional;

import io.faultline.sim.trace.TraceFormat;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceInput;
import io.faultline.sim.trace.TraceOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.Option;

/** The options of every command that reads traces of any format: a picocli mixin. */
@Command(modelTransformer = TraceInputOptions.Wording.class)
final class TraceInputOptions
{
    /** --pid, --tid and --skip-corrupt apply to faultline traces only, which this help says. */
    static final class Wording extends OptionWording
    {
        @Override
        protected Object[][] getContents()
        {
            return new Object[][] {
                {"pid", "faultline traces: keep one process's references"},
                {"tid", "faultline traces: keep one thread's references"},
                {"skip-corrupt", "faultline traces: read past corrupt excerpts, counting them"}};
        }
    }

    /** The known format names, for the help text and shell completion; listed only when asked (start-up time). */
    static final class FormatNames implements Iterable<String>
    {
        @Override
        public Iterator<String> iterator()
        {
            final ArrayList<String> names = new ArrayList<>();
            TraceFormats.all().forEach(f -> names.add(f.name()));
            return names.iterator();
        }
    }

    @Option(names = "--format", paramLabel = "F", completionCandidates = FormatNames.class,
        description = {"trace format: ${COMPLETION-CANDIDATES}; a directory is read as faultline, any other file "
            + "needs this (formats below); gzip, xz and zstd files are decompressed whatever their name"})
    String format;

    @Option(names = "--page-size", paramLabel = "B",
        description = "bytes per page for address traces (default 4096; a faultline trace's own); at least 1")
    Size pageSize;

    @Mixin
    ProcessFilter filter;

    @Option(names = "--no-ifetch", description = "lackey traces: leave out instruction fetches (I lines)")
    boolean noInstructionFetches;

    @Mixin
    SkipCorrupt corrupt;

    @Option(names = "--order", paramLabel = "reference|eviction",
        description = "faultline traces: reference records (default), or eviction records in the order they were "
            + "emitted (kVMTrace's reduced trace)")
    String order = "reference";

    /**
     * Adds the footer that describes each format, one line each, rendered only when help is
     * printed: listing the formats loads every reader, which {@code info} should not pay for.
     */
    static CommandLine withFormatsFooter(final CommandLine commandLine)
    {
        commandLine.getHelpSectionMap().put(UsageMessageSpec.SECTION_KEY_FOOTER,
            help -> help.createHeading(formatsFooter()));
        return commandLine;
    }

    private static String formatsFooter()
    {
        final StringBuilder footer = new StringBuilder("%nTrace formats (--format):%n");
        for (final TraceFormat format : TraceFormats.all())
        {
            footer.append(String.format(Locale.ROOT, "  %-11s %s%%n", format.name(), format.summary().replace("%", "%%")));
        }
        return footer.toString();
    }

    /**
     * @throws io.faultline.sim.trace.TraceException for an unknown format
     * @throws CliException for a value out of range
     */
    TraceInput input()
    {
        TraceOptions options = TraceOptions.defaults();
        if (pageSize != null)
        {
            options = options.withPageSize(Values.atLeast("--page-size", pageSize.bytes(), 1));
        }
        if (filter.pid() >= 0)
        {
            options = options.withPid(filter.pid());
        }
        if (filter.tid() >= 0)
        {
            options = options.withTid(filter.tid());
        }
        if (noInstructionFetches)
        {
            options = options.withoutInstructionFetches();
        }
        if (corrupt.skip)
        {
            options = options.skippingCorrupt();
        }
        switch (order)
        {
            case "reference" -> { }
            case "eviction" -> options = options.inEvictionOrder();
            default -> throw new CliException("unknown --order '" + order + "'; use --order reference or --order eviction");
        }
        return new TraceInput(Optional.ofNullable(format), options);
    }
}
