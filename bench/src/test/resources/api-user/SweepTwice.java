import java.nio.ByteBuffer;
import java.nio.file.Path;

import io.faultline.api.Faultline;
import io.faultline.api.RecordOptions;
import io.faultline.api.Recording;

/**
 * A user's program, compiled by FaultlineJarTest with nothing but faultline.jar on the class
 * path, as README.md's "Java API" says: two sweeps of writes over PAGES whole pages of a direct
 * buffer, traced with the EVMS given.
 *
 *   java -cp faultline.jar:. SweepTwice DIR EVMS PAGES
 */
public class SweepTwice
{
    public static void main(final String[] args)
    {
        final int pages = Integer.parseInt(args[2]);
        final ByteBuffer buffer = ByteBuffer.allocateDirect((pages + 1) * 4096).alignedSlice(4096);
        try (Recording r = Faultline.record(Path.of(args[0]), RecordOptions.evms(Integer.parseInt(args[1]))))
        {
            r.trace(buffer);
            for (int round = 0; round < 2; round++)
            {
                for (int p = 0; p < pages; p++)
                {
                    buffer.putLong(p * 4096 + 128, p);
                }
            }
            r.close();
            System.out.println("references=" + r.summary().references());
        }
    }
}
