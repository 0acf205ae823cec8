package io.faultline.sim.trace;

/**
 * The CSV of {@code faultline dump --format csv} and {@code faultline export --to csv}:
 * {@value FaultlineCsvWriter#HEADER}, the header line skipped (and the six columns of earlier
 * versions). Reference rows give the keys, or with {@link TraceOptions#evictionOrder()} the
 * eviction rows (kind evict). Key = the process and address / page size ({@link PageKey})
 * ({@code --page-size}, default 4096: the CSV does not carry the trace's own); {@code --pid}
 * and {@code --tid} keep one process's or one thread's references, each tagged with its thread.
 */
final class FaultlineCsvTraceFormat extends LineTraceFormat
{
    private static final int FIELDS = 7;
    private static final String OLD_HEADER = "seq,time_ns,pid,tid,kind,address";

    @Override
    public String name()
    {
        return "csv";
    }

    @Override
    public String summary()
    {
        return "faultline dump/export CSV: " + FaultlineCsvWriter.HEADER + "; key = process and address / page size";
    }

    @Override
    void parseLine(final String line, final TraceOptions options, final KeyTrace out)
    {
        if (line.startsWith(OLD_HEADER))
        {
            return;
        }
        final String[] fields = line.strip().split(",", -1);
        if (fields.length != FIELDS && fields.length != FIELDS - 1)
        {
            throw new IllegalArgumentException("expected " + FIELDS + " fields, " + FaultlineCsvWriter.HEADER);
        }
        final int pid = (int)parseDecimal(fields[2], "a pid");
        final int tid = (int)parseDecimal(fields[3], "a tid");
        final boolean eviction = fields[4].equals(FaultlineCsvWriter.EVICT);
        if (!eviction && !fields[4].equals("r") && !fields[4].equals("w"))
        {
            throw new IllegalArgumentException("expected kind r, w or " + FaultlineCsvWriter.EVICT);
        }
        if (eviction != options.evictionOrder())
        {
            return;
        }
        final long address = parseHex(fields[5], "an address");
        if ((options.pid().isEmpty() || options.pid().getAsInt() == pid)
            && (options.tid().isEmpty() || options.tid().getAsInt() == tid))
        {
            out.add(PageKey.of(pid, address, options.pageSizeOrDefault()), tid);
        }
    }
}
