import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A multi-threaded JVM workload for the capture benchmark and the real-program tests: three pool
 * threads fill hash maps from a linear congruential generator and fold them in key order, so the
 * output is deterministic. Argument: entries per task (default 200,000).
 */
public class Workers
{
    public static void main(final String[] args) throws Exception
    {
        final int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        final ExecutorService pool = Executors.newFixedThreadPool(3);
        final List<Future<Long>> parts = new ArrayList<>();
        for (int t = 0; t < 6; t++)
        {
            final int seed = t;
            parts.add(pool.submit(() ->
            {
                final Map<Integer, Long> m = new HashMap<>();
                long h = seed;
                for (int i = 0; i < n; i++)
                {
                    h = h * 6364136223846793005L + 1442695040888963407L;
                    m.merge((int)(h >>> 48), 1L, Long::sum);
                }
                long s = 0;
                for (final Map.Entry<Integer, Long> e : new TreeMap<>(m).entrySet())
                {
                    s = s * 31 + e.getKey() * e.getValue();
                }
                return s;
            }));
        }
        for (final Future<Long> f : parts)
        {
            System.out.println(f.get());
        }
        pool.shutdown();
    }
}
