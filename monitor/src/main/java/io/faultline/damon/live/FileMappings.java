package io.faultline.damon.live;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.AddressRange;

/**
 * The file-backed mappings of a process, from /proc/PID/maps (proc(5)): what a DAMOS action
 * may touch besides the anonymous memory the agent traces. The recorder's shared memory file,
 * which the agent maps, is left out.
 */
final class FileMappings
{
    private static final String SHM_PREFIX = "/dev/shm/faultline-";

    private FileMappings()
    {
    }

    static List<AddressRange> of(final int pid)
    {
        final List<AddressRange> out = new ArrayList<>();
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(Path.of("/proc/" + pid + "/maps"));
        }
        catch (final IOException ex)
        {
            return out; // the process is gone
        }
        for (final String line : lines)
        {
            // start-end perms offset dev inode [path]
            final String[] f = line.trim().split("\\s+", 6);
            if (f.length < 6 || f[4].equals("0") || !f[5].startsWith("/") || f[5].startsWith(SHM_PREFIX))
            {
                continue;
            }
            final int dash = f[0].indexOf('-');
            out.add(new AddressRange(Long.parseUnsignedLong(f[0].substring(0, dash), 16),
                Long.parseUnsignedLong(f[0].substring(dash + 1), 16)));
        }
        return out;
    }
}
