package io.faultline.api;

/**
 * How a {@link Recording} traces: the size of the evicted virtual mapping set (kVMTrace's EVMS,
 * the pages left enabled; every reference to another traced page is trapped and recorded), the
 * ring each process writes its records into, and the most records in one chunk. Immutable.
 */
public final class RecordOptions
{
    /** Fewest enabled pages: one x86 instruction may need several pages enabled at once. */
    public static final int MIN_EVMS_PAGES = io.faultline.tracer.RecordOptions.MIN_EVMS_PAGES;

    /** Most enabled pages (64 GiB of 4 KiB pages). */
    public static final int MAX_EVMS_PAGES = io.faultline.tracer.RecordOptions.MAX_EVMS_PAGES;

    private final int evmsPages;
    private final int ringBytes;
    private final int chunkRecords;

    private RecordOptions(final int evmsPages, final int ringBytes, final int chunkRecords)
    {
        this.evmsPages = evmsPages;
        this.ringBytes = ringBytes;
        this.chunkRecords = chunkRecords;
    }

    /** kVMTrace's defaults, as {@code faultline record}: 512 enabled pages (2 MiB), a 4 MiB ring, 256-record chunks. */
    public static RecordOptions defaults()
    {
        return new RecordOptions(512, 4 << 20, 256);
    }

    /** The defaults with an EVMS of {@code pages} pages ({@value #MIN_EVMS_PAGES} to {@value #MAX_EVMS_PAGES}). */
    public static RecordOptions evms(final int pages)
    {
        return defaults().withEvms(pages);
    }

    public RecordOptions withEvms(final int pages)
    {
        if (pages < MIN_EVMS_PAGES || pages > MAX_EVMS_PAGES)
        {
            throw new FaultlineException("RecordOptions.evms takes " + io.faultline.tracer.RecordOptions.EVMS_RANGE + ": "
                + pages);
        }
        return new RecordOptions(pages, ringBytes, chunkRecords);
    }

    /** The ring the agent writes records into: a power of two from 64 KiB to 1 GiB. */
    public RecordOptions withRingBytes(final int bytes)
    {
        if (bytes < 64 << 10 || Integer.bitCount(bytes) != 1 || bytes > 1 << 30)
        {
            throw new FaultlineException("RecordOptions.withRingBytes takes a power of two from 64 KiB to 1 GiB: " + bytes);
        }
        return new RecordOptions(evmsPages, bytes, chunkRecords);
    }

    public int evmsPages()
    {
        return evmsPages;
    }

    public int ringBytes()
    {
        return ringBytes;
    }

    public int chunkRecords()
    {
        return chunkRecords;
    }

    @Override
    public String toString()
    {
        return "evms=" + evmsPages + " ring=" + ringBytes + " chunk_records=" + chunkRecords;
    }
}
