package io.faultline.tools;

import picocli.CommandLine.Option;

/**
 * {@code --skip-corrupt}: read a faultline trace past its corrupt excerpts, counting them, instead
 * of stopping at the first (FORMAT.md, "Damage"); a picocli mixin of every command that reads a
 * trace. A command's help may word it its own way ({@link OptionWording}, key {@code skip-corrupt}).
 */
final class SkipCorrupt
{
    @Option(names = "--skip-corrupt", descriptionKey = "skip-corrupt",
        description = "read past corrupt excerpts, counting them (on stderr)")
    boolean skip;
}
