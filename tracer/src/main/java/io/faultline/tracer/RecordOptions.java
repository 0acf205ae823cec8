package io.faultline.tracer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Options of a recording (the command line's {@code faultline record} fills them in and checks
 * their ranges). Defaults follow kVMTrace: an EVMS of 512 pages (2 MiB), FIFO, every private
 * anonymous writable mapping.
 */
public final class RecordOptions
{
    /**
     * Fewest enabled pages: every page one instruction touches must be enabled at once for it
     * to complete, and an x86 instruction can touch many (an AVX-512 gather up to 16 elements).
     */
    public static final int MIN_EVMS_PAGES = 16;

    /** Most process slots: each has its own ring in /dev/shm (sparse until written). */
    public static final int MAX_PROCESSES = 1024;

    public Path output;
    public int evmsPages = 512;
    public int scope = io.faultline.format.ShmLayout.SCOPE_ALL;
    public int policy = io.faultline.format.ShmLayout.POLICY_FIFO;
    public int ringCapacity = 4 << 20;
    public int chunkRecords = 256;
    public int slots = 64;
    public boolean follow = true;
    public boolean quiet;
    public List<String> command = new ArrayList<>();

    /** Bytes per page of this machine, at which {@link #evmsPages} given in bytes are counted. */
    public static int systemPageSize()
    {
        return Libc.INSTANCE.getpagesize();
    }

    public String scopeName()
    {
        return scope == io.faultline.format.ShmLayout.SCOPE_API ? "api" : "all";
    }

    public String policyName()
    {
        return policy == io.faultline.format.ShmLayout.POLICY_CLOCK ? "clock" : "fifo";
    }
}
