package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.faultline.format.TraceEvent;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;

/** A recorded trace read into memory, for assertions. */
final class Traces
{
    record Ref(long seq, int pid, int tid, long address, boolean write)
    {
        char kind()
        {
            return write ? 'w' : 'r';
        }
    }

    final List<Ref> refs = new ArrayList<>();
    /** references the kernel made in a system call (the gate's, FL_REC_KERNEL) */
    int kernelRefs;
    final List<TraceEvent> events = new ArrayList<>();
    /** references (Ref) and events (TraceEvent) in the order the reader delivered them */
    final List<Object> delivered = new ArrayList<>();

    static Traces read(final Path dir)
    {
        final Traces traces = new Traces();
        try (TraceReader reader = TraceReader.open(dir))
        {
            reader.forEach(new TraceVisitor()
            {
                @Override
                public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                    final long address, final boolean write, final boolean kernel)
                {
                    traces.kernelRefs += kernel ? 1 : 0;
                    onReference(seq, timeNs, pid, tid, address, write);
                }

                @Override
                public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                    final long address, final boolean write)
                {
                    final Ref ref = new Ref(seq, pid, tid, address, write);
                    traces.refs.add(ref);
                    traces.delivered.add(ref);
                }

                @Override
                public void onEvent(final TraceEvent event)
                {
                    traces.events.add(event);
                    traces.delivered.add(event);
                }
            });
        }
        return traces;
    }
}
