package io.faultline.format;

/**
 * One decoded event excerpt; see {@link EventDescriptor} for the bytes and {@link EventType}
 * for what a, b, c and d hold.
 *
 * @param type null when the code is unknown to this version (then {@code code} tells it)
 */
public record TraceEvent(int code, EventType type, int pid, int tid, long seq, long timeNs,
    long a, long b, long c, long d, String text)
{
    /** Its type's label ({@link EventType#label}), or {@code event-CODE} for a type this version does not know. */
    public String label()
    {
        return type == null ? "event-" + code : type.label();
    }
}
