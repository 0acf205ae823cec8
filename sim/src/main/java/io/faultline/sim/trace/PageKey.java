package io.faultline.sim.trace;

/**
 * The key a reference of a faultline trace has in replay: its page number and its process, so
 * that two processes' pages at one virtual address (a fork child's copy of its parent's heap,
 * two exec'd images with the same layout) are two pages, as they are in memory and as kVMTrace
 * keyed them (its records carry the context). faultline traces private anonymous memory only,
 * which no two processes share. Linux's x86-64 user addresses lie below 2^47 with four-level
 * paging (Documentation/arch/x86/x86_64/mm.rst), so a page number at 4 KiB or more takes at most
 * 35 bits, and a pid is below 2^22 (PID_MAX_LIMIT, include/linux/threads.h): the pid goes from
 * bit 36 up and every key is positive. One definition for {@code mrc}, {@code simulate},
 * {@code record --live}, the exports that write keys, the readers of exports that carry the
 * process (csv, kvmtrace), and {@code info}'s distinct pages.
 */
public final class PageKey
{
    /** The page number's bits: addresses below 2^48 at 4 KiB pages. */
    static final int PAGE_BITS = 36;

    private PageKey()
    {
    }

    /**
     * @throws TraceException for an address whose page number reaches into the pid's bits (above
     *     the 48-bit address space: five-level paging, which a program must ask for)
     */
    public static long of(final int pid, final long address, final long pageSize)
    {
        return key(pid, Long.divideUnsigned(address, pageSize), address);
    }

    /** {@link #of(int, long, long)} for a page size of {@code 1 << pageShift}. */
    public static long ofShift(final int pid, final long address, final int pageShift)
    {
        return key(pid, address >>> pageShift, address);
    }

    /** The key of a page number already divided out (kVMTrace's VPAGE). */
    public static long ofPage(final int pid, final long page)
    {
        return key(pid, page, page << 12);
    }

    /** The page number of a key, without its process. */
    public static long page(final long key)
    {
        return key & ((1L << PAGE_BITS) - 1);
    }

    private static long key(final int pid, final long page, final long address)
    {
        if ((page >>> PAGE_BITS) != 0 || pid < 0)
        {
            throw new TraceException(String.format("reference to 0x%x by pid %d: replay keys a page by its process "
                + "and a page number below 2^%d (the 48-bit address space at 4 KiB pages); five-level paging is not "
                + "supported by the simulators", address, pid, PAGE_BITS));
        }
        return (long) pid << PAGE_BITS | page;
    }
}
