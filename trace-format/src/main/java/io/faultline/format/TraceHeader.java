package io.faultline.format;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The header of a trace: {@code header.properties}, key=value lines in a fixed order, readable
 * by {@link Properties#load(Reader)}. Written with {@code state=recording} when recording starts
 * and replaced atomically with {@code state=complete} and the totals when it ends, so a trace
 * whose recorder died never looks complete. Keys are documented in trace-format/FORMAT.md.
 */
public final class TraceHeader
{
    public static final String STATE = "state";
    /** What the directory holds: absent in traces; {@link TraceLayout#CONTENT_MONITOR} in DAMON monitoring records. */
    public static final String CONTENT = "content";
    public static final String FORMAT_VERSION = "format_version";
    public static final String FAULTLINE_VERSION = "faultline_version";
    public static final String PAGE_SIZE = "page_size";
    public static final String HOST = "host";
    public static final String KERNEL = "kernel";
    public static final String COMMAND = "command";
    /** {@code trace} (kVMTrace's EVMS) or {@code moca} (Moca's intervals); absent in traces of version 1: trace. */
    public static final String MODE = "mode";
    public static final String MODE_TRACE = "trace";
    public static final String MODE_MOCA = "moca";
    /** Moca mode: the interval in nanoseconds (0 in trace mode). */
    public static final String INTERVAL_NS = "interval_ns";
    public static final String EVMS_PAGES = "evms_pages";
    public static final String POLICY = "policy";
    public static final String LEAD_PAGES = "lead_pages";
    public static final String TRAIL = "trail";
    /** {@code false} under record --no-dirty: eviction tags' w/W then mean a write fault, not dirtiness. Absent: true. */
    public static final String DIRTY_TRACKING = "dirty_tracking";
    /** {@code false} under record --no-kernel-events: no open, read, write... events. Absent (older traces): none were recorded. */
    public static final String KERNEL_EVENTS = "kernel_events";
    public static final String SCOPE = "scope";
    /** How the agent trapped references: {@code uffd} (userfaultfd) or {@code mprotect}. */
    public static final String ENGINE = "engine";
    /** record --stacks N: most frames of a record's call stack; 0 or absent: the trace has no stacks. */
    public static final String STACK_FRAMES = "stack_frames";
    public static final String FOLLOW_FORKS = "follow_forks";
    public static final String RING_CAPACITY = "ring_capacity";
    public static final String CHUNK_RECORDS = "chunk_records";
    public static final String START_TIME = "start_time";
    public static final String END_TIME = "end_time";
    public static final String DURATION_NS = "duration_ns";
    /**
     * Format 4, a finished trace: when the program started (the time readers count from, FORMAT.md
     * "Time"), in nanoseconds since the recording started.
     */
    public static final String PROGRAM_START_NS = "program_start_ns";
    public static final String EXIT_STATUS = "exit_status";
    public static final String REFERENCES = "references";
    public static final String READS = "reads";
    public static final String WRITES = "writes";
    public static final String DISTINCT_PAGES = "distinct_pages";
    public static final String PROCESSES = "processes";
    public static final String THREADS = "threads";
    public static final String CHUNKS = "chunks";
    public static final String EVENTS = "events";
    public static final String AGENT_RECORDS = "agent_records";
    /**
     * Threads whose records in the trace differ from what their agent counted as published for
     * them (the thread ledgers, faultline_shm.h; 0: every thread whole); absent in traces
     * recorded before the ledgers existed.
     */
    public static final String UNMATCHED_THREADS = "unmatched_threads";
    public static final String RING_WAITS = "ring_waits";
    public static final String RING_WAIT_NS = "ring_wait_ns";
    public static final String EVICTIONS = "evictions";
    public static final String RACES = "races";
    /** state=incomplete: why the recording stopped, and when (ns since the recording started). */
    public static final String STOP_CAUSE = "stop_cause";
    public static final String STOPPED_NS = "stopped_ns";
    /** Moca mode: nanoseconds the agents spent disabling pages at interval ends ({@link #EVICTIONS} pages). */
    public static final String DISABLE_NS = "disable_ns";
    /** Prefix of per-thread lines: {@code thread.TID=pid=P references=N published=M reads=R writes=W name=comm}. */
    public static final String THREAD_PREFIX = "thread.";
    /** Prefix of per-process lines: {@code process.PID=ppid=P references=N stop=reason error=errno exe=path}. */
    public static final String PROCESS_PREFIX = "process.";
    /** Prefix of lines of programs the agent could not follow (event untraced): {@code untraced.PID=why=N machine=M exe=path}. */
    public static final String UNTRACED_PREFIX = "untraced.";

    private final Map<String, String> values;

    private TraceHeader(final Map<String, String> values)
    {
        this.values = values;
    }

    public static TraceHeader create()
    {
        return new TraceHeader(new LinkedHashMap<>());
    }

    public TraceHeader put(final String key, final Object value)
    {
        values.put(key, String.valueOf(value));
        return this;
    }

    public String get(final String key)
    {
        return values.get(key);
    }

    public Map<String, String> values()
    {
        return Collections.unmodifiableMap(values);
    }

    public String require(final String key)
    {
        final String value = values.get(key);
        if (value == null)
        {
            throw new TraceFormatException("trace header has no '" + key + "'");
        }
        return value;
    }

    public long longValue(final String key)
    {
        final String value = require(key);
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new TraceFormatException("trace header value is not a number: " + key + "=" + value);
        }
    }

    public int pageSize()
    {
        return (int)longValue(PAGE_SIZE);
    }

    /** Recorded in Moca's interval mode: its chunks are per-interval page sets, not reference streams. */
    public boolean isMoca()
    {
        return MODE_MOCA.equals(values.get(MODE));
    }

    public boolean isComplete()
    {
        return TraceLayout.STATE_COMPLETE.equals(values.get(STATE));
    }

    public static TraceHeader read(final Path file) throws IOException
    {
        return parse(Files.readString(file, StandardCharsets.UTF_8));
    }

    /** A header from its text, a properties file. */
    static TraceHeader parse(final String text) throws IOException
    {
        final Properties properties = new Properties();
        properties.load(new StringReader(text));
        // Keep the file's order for display: Properties itself does not.
        final Map<String, String> ordered = new LinkedHashMap<>();
        for (final String line : text.split("\n"))
        {
            final int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("#"))
            {
                final String key = unescape(line.substring(0, eq));
                if (properties.containsKey(key))
                {
                    ordered.put(key, properties.getProperty(key));
                }
            }
        }
        for (final String key : properties.stringPropertyNames())
        {
            ordered.putIfAbsent(key, properties.getProperty(key));
        }
        return new TraceHeader(ordered);
    }

    /**
     * Reads the header of the directory {@code dir}, which holds a {@code noun} ("trace", or
     * "monitoring record", which share the layout).
     *
     * @throws TraceFormatException with one line if there is no such directory, no header, or a corrupt one
     */
    public static TraceHeader readDirectory(final Path dir, final String noun)
    {
        final BasicFileAttributes attributes;
        try
        {
            attributes = Files.readAttributes(dir, BasicFileAttributes.class);
        }
        catch (final NoSuchFileException ex)
        {
            throw new TraceFormatException("no " + noun + " at " + dir + ": no such file or directory",
                InputProblem.UNREADABLE);
        }
        catch (final IOException ex)
        {
            throw new TraceFormatException("cannot read " + noun + " " + dir + ": " + InputProblem.reason(ex),
                InputProblem.UNREADABLE);
        }
        if (!attributes.isDirectory())
        {
            throw new TraceFormatException("no " + noun + " at " + dir + ": not a directory", InputProblem.MISUSED);
        }
        final Path headerFile = dir.resolve(TraceLayout.HEADER_FILE);
        final String text;
        try
        {
            text = Files.readString(headerFile, StandardCharsets.UTF_8);
        }
        catch (final NoSuchFileException ex)
        {
            throw new TraceFormatException(dir + " is not a faultline " + noun + ": it has no " + TraceLayout.HEADER_FILE,
                InputProblem.MISUSED);
        }
        catch (final java.nio.charset.CharacterCodingException ex)
        {
            // read, but not text (TraceReaderFuzzTest: it said "input length = 1", and called it unreadable)
            throw new TraceFormatException("corrupt " + noun + " header " + headerFile + ": it is not UTF-8 text");
        }
        catch (final IOException ex)
        {
            // permission is not corruption: the fix is the user's
            throw new TraceFormatException("cannot read " + noun + " header " + headerFile + ": " + InputProblem.reason(ex)
                + (ex instanceof AccessDeniedException ? "; read it as a user who may, or give this one read access" : ""),
                InputProblem.UNREADABLE);
        }
        try
        {
            return parse(text);
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            throw new TraceFormatException("corrupt " + noun + " header " + headerFile + ": " + ex.getMessage());
        }
    }

    /** Writes the header to a temporary file and renames it into place, so readers never see half of it. */
    public void write(final Path file) throws IOException
    {
        final StringBuilder text = new StringBuilder("# faultline trace header (trace-format/FORMAT.md)\n");
        for (final Map.Entry<String, String> entry : values.entrySet())
        {
            text.append(escape(entry.getKey(), true)).append('=').append(escape(entry.getValue(), false)).append('\n');
        }
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.ISO_8859_1);
        try
        {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final AtomicMoveNotSupportedException ex)
        {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static String unescape(final String key)
    {
        final Properties p = new Properties();
        try
        {
            p.load(new StringReader(key + "=x"));
        }
        catch (final IOException ex)
        {
            return key;
        }
        return p.stringPropertyNames().isEmpty() ? key : p.stringPropertyNames().iterator().next();
    }

    // Properties escaping, written by hand so the lines keep our order (Properties.store does not).
    private static String escape(final String s, final boolean key)
    {
        final StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                case '=': case ':': case '#': case '!':
                    if (key || i == 0)
                    {
                        out.append('\\');
                    }
                    out.append(c);
                    break;
                case ' ':
                    if (key || i == 0)
                    {
                        out.append('\\');
                    }
                    out.append(c);
                    break;
                default:
                    if (c < 0x20 || c > 0x7e)
                    {
                        out.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        out.append(c);
                    }
            }
        }
        return out.toString();
    }
}
