package io.faultline.sim.trace;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** The registry of export formats by name. */
public final class ExportFormats
{
    private static final Map<String, ExportFormat> FORMATS = new LinkedHashMap<>();

    static
    {
        for (final ExportFormat format : new ExportFormat[] {
            new LibCacheSimOracleWriter(),
            new LibCacheSimLcsWriter(),
            KeyLinesWriter.libCacheSimText(),
            KeyLinesWriter.lirs(),
            new FaultlineCsvWriter(),
            new KvmTraceWriter()})
        {
            FORMATS.put(format.name(), format);
        }
    }

    private ExportFormats()
    {
    }

    public static Collection<ExportFormat> all()
    {
        return FORMATS.values();
    }

    public static String names()
    {
        return String.join(", ", FORMATS.keySet());
    }

    /** @throws TraceException naming the known formats if {@code name} is not one */
    public static ExportFormat get(final String name)
    {
        final ExportFormat format = FORMATS.get(name);
        if (format == null)
        {
            throw new TraceException("unknown export format '" + name + "'; known formats: " + names(), io.faultline.format.InputProblem.MISUSED);
        }
        return format;
    }
}
