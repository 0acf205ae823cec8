package io.faultline.tools;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

import io.faultline.sim.Policies;
import io.faultline.sim.PolicySpec;
import picocli.CommandLine.Option;

/**
 * {@code --policies} and {@code --sizes}, the policies x sizes of a replay: a picocli mixin of
 * {@link SimulationGrid} (simulate, sweep) and of {@code record --live}, so that a grid is given
 * and read the same way in each. record words them as {@code --live}'s ({@link OptionWording},
 * keys {@code policies} and {@code sizes}).
 */
final class PolicyGrid
{
    /** The policy names, for the help text and shell completion; listed only when asked (start-up time). */
    static final class PolicyNames implements Iterable<String>
    {
        @Override
        public Iterator<String> iterator()
        {
            return Policies.names().iterator();
        }
    }

    @Option(names = "--policies", paramLabel = "P1,P2,...", completionCandidates = PolicyNames.class,
        descriptionKey = "policies",
        description = {"policies, each NAME or NAME:param=value:...; known: ${COMPLETION-CANDIDATES}"})
    String policies;

    @Option(names = "--sizes", paramLabel = "S", split = ",", descriptionKey = "sizes",
        description = {"cache sizes in pages; a K, M or G suffix (KiB, MiB, GiB) means bytes, converted at the page "
            + "size: --sizes 64,1M = 64 and 256 pages of 4 KiB"})
    List<Size> sizes;

    /**
     * The policies, in the order given.
     *
     * @throws IllegalArgumentException for a policy or parameter {@link PolicySpec} does not know
     */
    List<PolicySpec> specs()
    {
        final List<PolicySpec> specs = new ArrayList<>();
        for (final String text : policies.split(",", -1))
        {
            specs.add(PolicySpec.parse(text));
        }
        return specs;
    }

    /**
     * The sizes in pages of {@code pageSize} bytes, each from 1 to the longest array, in the
     * order given; a size given twice (4096,4K at 1 KiB pages) is simulated once.
     */
    int[] capacities(final int pageSize)
    {
        final int[] pages = new int[sizes.size()];
        for (int i = 0; i < pages.length; i++)
        {
            pages[i] = SimulationGrid.cacheSize(sizes.get(i), pageSize, "--sizes");
        }
        return Arrays.stream(pages).distinct().toArray();
    }
}
