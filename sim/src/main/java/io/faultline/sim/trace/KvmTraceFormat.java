package io.faultline.sim.trace;

/**
 * kVMTrace's reduced trace as {@link KvmTraceWriter} writes it: {@code TAG TIME_NS PID VPAGE};
 * key = the process and the virtual page ({@link PageKey}), in line (eviction) order; {@code --pid} keeps one process's lines.
 * The kernel records between them (tags {@code ( ) < > t - s U}: open, close, read, write,
 * truncate, delete, shmat, unmap) name files and segments, not pages: they are skipped.
 */
final class KvmTraceFormat extends LineTraceFormat
{
    static final String NAME = "kvmtrace";

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String summary()
    {
        return "kVMTrace reduced trace (faultline export --to kvmtrace): TAG TIME_NS PID VPAGE; key = PID and VPAGE";
    }

    @Override
    void parseLine(final String line, final TraceOptions options, final KeyTrace out)
    {
        final String stripped = line.strip();
        if (stripped.length() > 1 && stripped.charAt(1) == ' ' && KvmTraceWriter.KERNEL_TAGS.indexOf(stripped.charAt(0)) >= 0)
        {
            return; /* a kernel record */
        }
        final String[] fields = stripped.split(" ");
        if (fields.length != 4 || fields[0].length() != 1 || "rwRW".indexOf(fields[0].charAt(0)) < 0)
        {
            throw new IllegalArgumentException("expected TAG TIME_NS PID VPAGE with tag r, w, R or W");
        }
        final int pid = (int)parseDecimal(fields[2], "a pid");
        if (options.pid().isEmpty() || options.pid().getAsInt() == pid)
        {
            out.add(PageKey.ofPage(pid, parseHex(fields[3], "a virtual page")));
        }
    }
}
