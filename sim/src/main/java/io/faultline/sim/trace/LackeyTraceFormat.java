package io.faultline.sim.trace;

/**
 * The output of Valgrind's {@code --tool=lackey --trace-mem=yes}: lines {@code I  0400d7d4,8}
 * (instruction fetch), {@code  L 7ff000398,8} (load), {@code  S 7ff000398,8} (store) and
 * {@code  M 0421c7f0,4} (modify: a load and a store of the same bytes, counted once, as the
 * page is touched once). Valgrind's own lines, starting {@code ==PID==} or {@code --PID--}, are
 * skipped.
 *
 * <p>Key = the page of the address. An access whose bytes span two pages references both, in
 * address order. Instruction fetches count by default, because code pages compete for memory
 * like data pages; {@code --no-ifetch} leaves them out to study the data alone.
 */
final class LackeyTraceFormat extends LineTraceFormat
{
    @Override
    public String name()
    {
        return "lackey";
    }

    @Override
    public String summary()
    {
        return "Valgrind lackey --trace-mem=yes: 'I|L|S|M ADDR,SIZE'; key = page, both pages if split"
            + " (--no-ifetch drops I)";
    }

    @Override
    void parseLine(final String line, final TraceOptions options, final KeyTrace out)
    {
        if (line.startsWith("==") || line.startsWith("--"))
        {
            return;
        }
        final String text = line.strip();
        if (text.length() < 2 || !Character.isWhitespace(text.charAt(1)))
        {
            throw new IllegalArgumentException("expected 'I', 'L', 'S' or 'M', a space, then ADDRESS,SIZE");
        }
        final char kind = text.charAt(0);
        if (kind != 'I' && kind != 'L' && kind != 'S' && kind != 'M')
        {
            throw new IllegalArgumentException("expected access kind 'I', 'L', 'S' or 'M'");
        }
        final String access = text.substring(1).strip();
        final int comma = access.indexOf(',');
        if (comma < 0)
        {
            throw new IllegalArgumentException("expected ADDRESS,SIZE");
        }
        final long address = parseHex(access.substring(0, comma), "the address");
        final long size = parseDecimal(access.substring(comma + 1), "the size");
        if (size == 0)
        {
            throw new IllegalArgumentException("expected a size of at least 1 byte");
        }
        if (kind == 'I' && !options.instructionFetches())
        {
            return;
        }
        final int pageSize = options.pageSizeOrDefault();
        final long first = page(address, pageSize);
        final long last = page(address + size - 1, pageSize);
        out.add(first);
        if (last != first)
        {
            out.add(last);
        }
    }
}
