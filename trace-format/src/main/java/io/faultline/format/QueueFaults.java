package io.faultline.format;

/**
 * A failure of Chronicle Queue on a damaged queue file, in words: it maps the files, so a file
 * cut short faults on read (an InternalError), and it throws what its framing checks find,
 * checked exceptions among them (StreamCorruptedException, rethrown unchecked), whose text
 * says nothing to a user (the readers' fuzzer, TraceReaderFuzzTest, found them in the open).
 */
final class QueueFaults
{
    private QueueFaults()
    {
    }

    static String describe(final Throwable ex)
    {
        if (ex instanceof InternalError)
        {
            return "a queue file is cut short";
        }
        if (ex instanceof java.io.StreamCorruptedException)
        {
            return "a queue file's framing is damaged";
        }
        if (ex instanceof java.util.concurrent.TimeoutException)
        {
            return "a queue file's first header is never complete: it is damaged, or its writer died writing it";
        }
        return "a queue file is damaged";
    }
}
