package io.faultline.sim.trace;

import java.nio.charset.StandardCharsets;

/**
 * libCacheSim's plain text trace ({@code -t txt}): one object id per line, every object of
 * size 1. libCacheSim reads the id as a number; an id that is not an unsigned decimal 64-bit
 * number (a path, a URL) is hashed instead with 64-bit FNV-1a over its bytes, so the same text
 * always gives the same key. A hashed id could collide with a numeric one; with 2^64 keys that
 * is negligible for the traces this reads.
 */
final class LibCacheSimTextFormat extends LineTraceFormat
{
    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    @Override
    public String name()
    {
        return "lcs-txt";
    }

    @Override
    public String summary()
    {
        return "libCacheSim text: one object id per line; key = id (non-numeric ids hashed with FNV-1a)";
    }

    @Override
    void parseLine(final String line, final TraceOptions options, final KeyTrace out)
    {
        final String id = line.strip();
        out.add(isUnsignedDecimal(id) ? Long.parseUnsignedLong(id) : fnv1a(id));
    }

    /** 64-bit FNV-1a of the id's UTF-8 bytes (the line is decoded as ISO-8859-1, byte for char). */
    static long fnv1a(final String id)
    {
        long hash = FNV_OFFSET_BASIS;
        for (final byte b : id.getBytes(StandardCharsets.ISO_8859_1))
        {
            hash ^= b & 0xff;
            hash *= FNV_PRIME;
        }
        return hash;
    }

    private static boolean isUnsignedDecimal(final String id)
    {
        if (id.isEmpty() || id.length() > 20)
        {
            return false;
        }
        for (int i = 0; i < id.length(); i++)
        {
            final char c = id.charAt(i);
            if (c < '0' || c > '9')
            {
                return false;
            }
        }
        // 20 digits may overflow 2^64: Long.parseUnsignedLong would throw; hash those.
        return id.length() < 20 || id.compareTo("18446744073709551615") <= 0;
    }
}
