package io.faultline.tools;

import java.util.ListResourceBundle;

import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;

/**
 * A command's own words for options declared once in a mixin ({@link ProcessFilter}, {@link
 * SkipCorrupt}, {@link PolicyGrid}): the mixin's option names a {@code descriptionKey}, and a
 * command whose help says more than the mixin's default (dump: "references and events") names a
 * subclass as the {@code modelTransformer} of its {@code Command} annotation, whose contents map
 * keys to its words. picocli looks a description up by key in the command's resource bundle; this
 * is that bundle, an object made here rather than found by {@code ResourceBundle.getBundle}, whose
 * first lookup cost a fresh JVM 35 to 64 ms on the 2-core VM (5 runs, the machine shared), start-up
 * every command would pay.
 */
abstract class OptionWording extends ListResourceBundle implements IModelTransformer
{
    /** Words of its own only. */
    protected OptionWording()
    {
    }

    /**
     * Its own words over those of a mixin inside it. picocli runs one model transformer for a
     * command, its own or else a mixin's, so a command or mixin with words of its own that holds
     * {@link TraceInputOptions} (mrc, reuse, {@link SimulationGrid}) names that mixin's words
     * here: a key this one lacks is looked up there.
     */
    protected OptionWording(final OptionWording inner)
    {
        setParent(inner);
    }

    @Override
    public CommandSpec transform(final CommandSpec spec)
    {
        spec.resourceBundle(this);
        return spec;
    }
}
