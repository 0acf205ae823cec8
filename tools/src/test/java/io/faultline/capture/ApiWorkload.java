package io.faultline.capture;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.faultline.api.Faultline;
import io.faultline.api.FaultlineException;
import io.faultline.api.RecordOptions;
import io.faultline.api.Recording;

/**
 * A JVM that traces itself through the Java API, started by {@link ApiRecordingTest} in its own
 * process (a deadlock then fails the test by its time limit instead of hanging the suite).
 * Prints what the test compares with the model, one {@code key=value} line each.
 * <pre>
 *   script DIR EVMS PAGES SCRIPT [DIR EVMS SCRIPT]...  recordings in sequence over one buffer
 *   gc DIR EVMS PAGES SCRIPT                           the same while another thread runs System.gc()
 *   kill DIR PAGES                                     the recorder is killed during the recording
 *   bad DIR                                            each misuse, and the exception it gets
 * </pre>
 * SCRIPT is the C exactness tests' notation: "r3,w0": read page 3, write page 0.
 */
public final class ApiWorkload
{
    private static final int PAGE = 4096;

    private ApiWorkload()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        switch (args[0])
        {
            case "script" -> {
                final ByteBuffer buffer = pages(Integer.parseInt(args[3]));
                for (int i = 1; i + 2 < args.length; i += i == 1 ? 4 : 3)
                {
                    final String script = args[i == 1 ? 4 : i + 2];
                    try (Recording r = Faultline.record(Path.of(args[i]), RecordOptions.evms(Integer.parseInt(args[i + 1]))))
                    {
                        r.trace(buffer);
                        run(buffer, script);
                    }
                }
                report(buffer);
            }
            case "gc" -> {
                final ByteBuffer buffer = pages(Integer.parseInt(args[3]));
                final long[] collections = new long[1];
                final Thread gc = new Thread(() ->
                {
                    while (!Thread.currentThread().isInterrupted())
                    {
                        System.gc();
                        collections[0]++;
                    }
                }, "gc-loop");
                try (Recording r = Faultline.record(Path.of(args[1]), RecordOptions.evms(Integer.parseInt(args[2]))))
                {
                    r.trace(buffer);
                    gc.start();
                    run(buffer, args[4]);
                    gc.interrupt();
                    gc.join();
                }
                System.out.println("collections=" + collections[0]);
                report(buffer);
            }
            case "kill" -> {
                final int pages = Integer.parseInt(args[2]);
                final ByteBuffer buffer = pages(pages);
                final Recording r = Faultline.record(Path.of(args[1]), RecordOptions.evms(16));
                r.trace(buffer);
                touchAll(buffer, pages);
                final ProcessHandle recorder = ProcessHandle.current().children().findFirst().orElseThrow();
                recorder.destroyForcibly();
                recorder.onExit().get();
                for (int round = 0; round < 3; round++)
                {
                    touchAll(buffer, pages);
                }
                System.out.println("trace_after_kill=" + message(() -> r.trace(buffer)));
                System.out.println("close_after_kill=" + message(r::close));
                report(buffer);
                try (Recording again = Faultline.record(Path.of(args[1] + "-again"), RecordOptions.evms(16)))
                {
                    again.trace(buffer);
                    touchAll(buffer, pages);
                }
                System.out.println("again=ok");
            }
            case "bad" -> {
                final Path dir = Path.of(args[1]);
                System.out.println("heap=" + message(() ->
                {
                    try (Recording r = Faultline.record(dir.resolve("heap")))
                    {
                        r.trace(ByteBuffer.allocate(PAGE));
                    }
                }));
                final Recording closed = Faultline.record(dir.resolve("closed"));
                closed.close();
                System.out.println("closed=" + message(() -> closed.trace(pages(1))));
                System.out.println("unwritable=" + message(() -> Faultline.record(dir.resolve("file").resolve("t"))));
                try (Recording first = Faultline.record(dir.resolve("first")))
                {
                    System.out.println("concurrent=" + message(() -> Faultline.record(dir.resolve("second"))));
                }
                System.out.println("evms=" + message(() -> RecordOptions.evms(4)));
                System.out.println("holds_trace=" + message(() -> Faultline.record(dir.resolve("closed"))));
                final Path file = dir.resolve("mapped.bin");
                Files.write(file, new byte[2 * PAGE]);
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    Recording r = Faultline.record(dir.resolve("mapped")))
                {
                    final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 2 * PAGE);
                    System.out.println("mapped=" + message(() -> r.trace(mapped)));
                }
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** A direct buffer of exactly {@code pages} whole pages, filled with a pattern before tracing. */
    private static ByteBuffer pages(final int pages)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect((pages + 1) * PAGE).alignedSlice(PAGE);
        buffer.limit(pages * PAGE);
        final ByteBuffer exact = buffer.slice();
        for (int i = 0; i < pages * PAGE; i += 8)
        {
            exact.putLong(i, pattern(i));
        }
        return exact;
    }

    private static long pattern(final int offset)
    {
        return offset * 0x9E3779B97F4A7C15L + 17;
    }

    /** The script's references; a write stores the pattern's value back, so the contents stay known. */
    private static void run(final ByteBuffer buffer, final String script)
    {
        long sum = 0;
        for (final String op : script.split(","))
        {
            final int offset = Integer.parseInt(op.substring(1)) * PAGE + 64;
            if (op.charAt(0) == 'w')
            {
                buffer.putLong(offset, pattern(offset));
            }
            else
            {
                sum += buffer.getLong(offset);
            }
        }
        System.out.println("sum=" + sum);
    }

    private static void touchAll(final ByteBuffer buffer, final int pages)
    {
        for (int p = 0; p < pages; p++)
        {
            buffer.putLong(p * PAGE + 64, pattern(p * PAGE + 64));
        }
    }

    private static void report(final ByteBuffer buffer)
    {
        final Pointer p = Native.getDirectBufferPointer(buffer);
        System.out.println("base=0x" + Long.toHexString(Pointer.nativeValue(p)));
        boolean intact = true;
        for (int i = 0; i < buffer.capacity(); i += 8)
        {
            intact &= buffer.getLong(i) == pattern(i);
        }
        System.out.println("intact=" + intact);
    }

    private static String message(final Runnable action)
    {
        try
        {
            action.run();
            return "no exception";
        }
        catch (final FaultlineException ex)
        {
            return ex.getMessage();
        }
    }
}
