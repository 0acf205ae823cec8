package io.faultline.sim.trace;

/**
 * The UCSD CSE 240A address traces (as bundled with Caffeine's simulator): lines
 * {@code l 0x1fffff60 1}, a load ({@code l}) or store ({@code s}), the address in hexadecimal,
 * and the number of instructions since the previous access (read but not used). Key = the page
 * of the address at the page size (4096 unless {@code --page-size}).
 */
final class AddressTraceFormat extends LineTraceFormat
{
    @Override
    public String name()
    {
        return "address";
    }

    @Override
    public String summary()
    {
        return "UCSD address traces: 'l|s 0xADDRESS COUNT' per line; key = address / page size";
    }

    @Override
    void parseLine(final String line, final TraceOptions options, final KeyTrace out)
    {
        final String[] fields = line.strip().split("\\s+");
        if (fields.length != 3)
        {
            throw new IllegalArgumentException("expected 3 fields 'l|s ADDRESS COUNT', found " + fields.length);
        }
        if (!fields[0].equals("l") && !fields[0].equals("s"))
        {
            throw new IllegalArgumentException("expected 'l' (load) or 's' (store) first");
        }
        final long address = parseHex(fields[1], "the address");
        parseDecimal(fields[2], "the instruction count");
        out.add(page(address, options.pageSizeOrDefault()));
    }
}
