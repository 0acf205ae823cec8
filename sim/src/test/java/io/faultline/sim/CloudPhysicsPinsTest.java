package io.faultline.sim;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * libCacheSim-style pins: exact miss counts of every policy on cloudPhysicsIO.txt (113,872
 * requests, every object of size 1) at several capacities. LRU's first four columns (128, 256,
 * 512, 1024) are libCacheSim's published numbers; ARC's row equals libCacheSim's ARC (built from
 * source, every object of size 1: LirsTracesPinsTest); every other row is a regression guard computed
 * by this implementation after its hand-computed and property tests passed, since libCacheSim
 * publishes no size-1 numbers for them. A change that moves a number is a change in behaviour.
 */
class CloudPhysicsPinsTest
{
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // policy           | 128    | 256   | 512   | 1024  | 4096
        "lru                | 99411  | 96397 | 95370 | 94816 | 92713",
        "fifo               | 100831 | 98050 | 96467 | 95505 | 92813",
        "clock              | 99068  | 96095 | 95301 | 94728 | 92645",
        "segq               | 99450  | 96450 | 95405 | 94806 | 92669",
        "segq:trail=lru     | 99411  | 96397 | 95370 | 94816 | 92713",
        "segq:trail=fifo    | 99412  | 96394 | 95369 | 94818 | 92717",
        "segq:trail=clock   | 99450  | 96450 | 95405 | 94806 | 92669",
        "2q                 | 96042  | 95144 | 94558 | 94092 | 89327",
        "2q:kin=0.5:kout=1  | 96786  | 95121 | 94455 | 93815 | 88048",
        "arc                | 96142  | 94794 | 94209 | 94023 | 89960",
        "arc:integer=true   | 96138  | 94796 | 94210 | 94024 | 89960",
        "car                | 96333  | 94915 | 94239 | 93862 | 90015",
        "lirs               | 96519  | 95251 | 94594 | 94278 | 85744",
        "lirs:hir=0.1       | 95697  | 94835 | 94319 | 94111 | 87662",
        "clock-pro          | 96600  | 95484 | 94716 | 94323 | 88831",
        "sieve              | 97995  | 94924 | 94367 | 93958 | 91429",
        "s3fifo             | 96039  | 95244 | 94533 | 94016 | 87416",
        "s3fifo:small=0.2   | 95947  | 95133 | 94387 | 93968 | 87878",
        "opt                | 93495  | 92213 | 90079 | 86881 | 74023",
    })
    void missCounts(final String policy, final long at128, final long at256, final long at512, final long at1024,
        final long at4096)
    {
        final long[] trace = ReferenceTraces.cloudPhysicsIO();
        final int[] capacities = {128, 256, 512, 1024, 4096};
        final long[] actual = new long[capacities.length];
        for (int i = 0; i < capacities.length; i++)
        {
            actual[i] = Simulator.run(PolicySpec.parse(policy), capacities[i], trace).misses();
        }
        assertArrayEquals(new long[] {at128, at256, at512, at1024, at4096}, actual, policy);
    }
}
