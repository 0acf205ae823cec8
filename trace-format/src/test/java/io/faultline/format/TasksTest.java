package io.faultline.format;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.Test;

class TasksTest
{
    @Test
    void aTasksFailureReachesItsWaiterAsItWas()
    {
        final IllegalArgumentException unchecked = new IllegalArgumentException("bad");
        assertSame(unchecked, Tasks.unchecked(new ExecutionException(unchecked)));
        final OutOfMemoryError error = new OutOfMemoryError("heap");
        assertSame(error, assertThrows(OutOfMemoryError.class, () -> Tasks.unchecked(new ExecutionException(error))));
        final IOException checked = new IOException("disk");
        final RuntimeException wrapped = Tasks.unchecked(new ExecutionException(checked));
        assertTrue(wrapped instanceof IllegalStateException);
        assertSame(checked, wrapped.getCause());
    }

    @Test
    void anInterruptDuringAJoinIsKeptForTheCaller() throws Exception
    {
        final Thread worker = new Thread(() ->
        {
            try
            {
                Thread.sleep(200);
            }
            catch (final InterruptedException ignored)
            {
                // not interrupted here
            }
        });
        worker.start();
        Thread.currentThread().interrupt();
        Tasks.join(worker);
        assertFalse(worker.isAlive());
        assertTrue(Thread.interrupted()); // clears it, too
    }
}
