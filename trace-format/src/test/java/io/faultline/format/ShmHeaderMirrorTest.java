package io.faultline.format;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared-memory contract has one definition, native-shims/include/faultline_shm.h, and Java
 * mirrors of it (ShmLayout, ChunkDescriptor, EventDescriptor, EventType; Agrona's own
 * descriptors for the ring). Every numeric {@code #define} of the header must equal its
 * mirror, offset by offset; a define added to the header without a mirror fails this test
 * until it is mirrored or named below as C-only with the reason.
 */
class ShmHeaderMirrorTest
{
    private static final Path HEADER = Path.of("..", "native-shims", "include", "faultline_shm.h");

    /** Defines that have no Java counterpart, and why. */
    private static final Set<String> C_ONLY = Set.of(
        "FAULTLINE_SHM_H");   // the include guard

    private static final Pattern DEFINE = Pattern.compile("^#define\\s+(FL_\\w+|FAULTLINE_\\w+)\\s*(.*?)\\s*(/\\*.*)?$");

    @Test
    void everyDefineEqualsItsJavaMirror() throws Exception
    {
        final Map<String, String> defines = defines();
        final Map<String, Long> values = new LinkedHashMap<>();
        for (final Map.Entry<String, String> e : defines.entrySet())
        {
            values.put(e.getKey(), evaluate(e.getValue(), values, defines));
        }
        final Set<String> unmirrored = new TreeSet<>();
        int compared = 0;
        for (final Map.Entry<String, Long> e : values.entrySet())
        {
            final String name = e.getKey();
            if (C_ONLY.contains(name) || e.getValue() == null)
            {
                continue;
            }
            final Long mirror = mirror(name);
            if (mirror == null)
            {
                unmirrored.add(name);
                continue;
            }
            assertEquals(e.getValue(), mirror, name + " in faultline_shm.h differs from its Java mirror");
            compared++;
        }
        assertTrue(unmirrored.isEmpty(), "defines of faultline_shm.h without a Java mirror: " + unmirrored
            + " (add the constant to the mirror class, or to C_ONLY with the reason)");
        assertTrue(compared > 90, "only " + compared + " defines compared: is the header parsed?");
    }

    @Test
    void theEnvironmentVariableNameMatches() throws IOException
    {
        assertEquals("\"" + ShmLayout.ENV_SHM + "\"", defines().get("FL_ENV_SHM"));
    }

    private static Map<String, String> defines() throws IOException
    {
        assertTrue(Files.isRegularFile(HEADER), "header not found at " + HEADER.toAbsolutePath());
        final Map<String, String> defines = new LinkedHashMap<>();
        for (final String line : Files.readAllLines(HEADER))
        {
            final Matcher m = DEFINE.matcher(line.strip());
            if (m.matches())
            {
                defines.put(m.group(1), m.group(2));
            }
        }
        return defines;
    }

    /** A define's value: a number (with u, ULL suffixes, hex, parentheses, a sign) or another define; null for strings. */
    private static Long evaluate(final String text, final Map<String, Long> known, final Map<String, String> defines)
    {
        String t = text.strip();
        if (t.isEmpty() || t.startsWith("\""))
        {
            return null;
        }
        while (t.startsWith("(") && t.endsWith(")"))
        {
            t = t.substring(1, t.length() - 1).strip();
        }
        if (defines.containsKey(t))
        {
            return known.get(t);
        }
        final boolean negative = t.startsWith("-");
        if (negative)
        {
            t = t.substring(1);
        }
        t = t.replaceAll("(?i)(ull|ul|u|l)$", "");
        final long v = t.startsWith("0x") || t.startsWith("0X") ? Long.parseUnsignedLong(t.substring(2), 16) : Long.parseLong(t);
        return negative ? -v : v;
    }

    private static Long mirror(final String name) throws IllegalAccessException
    {
        if (name.startsWith("FL_EV_"))
        {
            final String type = name.substring("FL_EV_".length());
            for (final EventType e : EventType.values())
            {
                if (e.name().equals(type))
                {
                    return (long)e.code();
                }
            }
            return null;
        }
        return switch (name)
        {
            case "FL_SHM_MAGIC" -> field(ShmLayout.class, "MAGIC");
            case "FL_SHM_VERSION" -> field(ShmLayout.class, "VERSION");
            case "FL_RING_TAIL_POSITION_OFFSET" -> (long)RingBufferDescriptor.TAIL_POSITION_OFFSET;
            case "FL_RING_HEAD_CACHE_OFFSET" -> (long)RingBufferDescriptor.HEAD_CACHE_POSITION_OFFSET;
            case "FL_RING_HEAD_POSITION_OFFSET" -> (long)RingBufferDescriptor.HEAD_POSITION_OFFSET;
            case "FL_RING_CORRELATION_OFFSET" -> (long)RingBufferDescriptor.CORRELATION_COUNTER_OFFSET;
            case "FL_RING_HEARTBEAT_OFFSET" -> (long)RingBufferDescriptor.CONSUMER_HEARTBEAT_OFFSET;
            case "FL_RING_TRAILER_LENGTH" -> (long)RingBufferDescriptor.TRAILER_LENGTH;
            case "FL_RING_HEADER_LENGTH" -> (long)RecordDescriptor.HEADER_LENGTH;
            case "FL_RING_ALIGNMENT" -> (long)RecordDescriptor.ALIGNMENT;
            case "FL_RING_PADDING_MSG_TYPE" -> (long)org.agrona.concurrent.ringbuffer.RingBuffer.PADDING_MSG_TYPE_ID;
            case "FL_CHUNK_ID" -> field(ChunkDescriptor.class, "CHUNK_ID");
            default -> byPrefix(name);
        };
    }

    private static Long byPrefix(final String name) throws IllegalAccessException
    {
        if (name.startsWith("FL_CHUNK_"))
        {
            return field(ChunkDescriptor.class, name.substring("FL_CHUNK_".length()));
        }
        if (name.startsWith("FL_RECORD_") || name.startsWith("FL_REC_"))
        {
            return field(ChunkDescriptor.class, name.substring("FL_".length()));
        }
        if (name.startsWith("FL_EVENT_"))
        {
            return field(EventDescriptor.class, name.substring("FL_EVENT_".length()));
        }
        return field(ShmLayout.class, name.substring("FL_".length()));
    }

    private static Long field(final Class<?> type, final String name) throws IllegalAccessException
    {
        try
        {
            final Field f = type.getField(name);
            return ((Number)f.get(null)).longValue();
        }
        catch (final NoSuchFieldException ex)
        {
            return null;
        }
    }
}
