package io.faultline.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The system-call gate's table (native-shims/src/gate_table.c) against the kernel's x86-64
 * system-call list (resources/gate/syscalls-x86_64.txt, derived from the Linux source at the
 * version it names): every call that takes user memory has an entry under its number with the
 * kernel's name, and no entry names a call that takes none or does not exist.
 */
class GateTableTest
{
    private static final Pattern ENTRY = Pattern.compile("^\\s*\\[(\\d+)\\] = \\{ \"([^\"]+)\", ([^,]+),", Pattern.MULTILINE);

    record Call(String name, String memory)
    {
    }

    @Test
    void everyCallThatTakesUserMemoryHasAnEntryUnderItsNumber() throws IOException
    {
        final Map<Integer, Call> kernel = kernelList();
        final Map<Integer, String[]> table = table();
        final List<String> missing = new ArrayList<>();
        final List<String> wrong = new ArrayList<>();
        kernel.forEach((nr, call) ->
        {
            final boolean takesMemory = call.memory().equals("user") || call.memory().equals("arg");
            final String[] entry = table.get(nr);
            if (takesMemory && entry == null)
            {
                missing.add(nr + " " + call.name());
            }
            if (entry != null && (!entry[0].equals(call.name()) || !takesMemory))
            {
                wrong.add(nr + " " + entry[0] + " (kernel: " + call.name() + ", " + call.memory() + ")");
            }
        });
        table.forEach((nr, entry) ->
        {
            if (!kernel.containsKey(nr))
            {
                wrong.add(nr + " " + entry[0] + " (no such x86-64 call)");
            }
        });
        assertEquals(List.of(), missing, "calls that take user memory without an entry in gate_table.c");
        assertEquals(List.of(), wrong, "entries of gate_table.c that the kernel's list does not have so");
        assertTrue(kernel.size() > 370, "the kernel list: " + kernel.size() + " calls");
    }

    /** io_uring is refused (the kernel reads its rings with no system call to gate); nothing else is. */
    @Test
    void onlyIoUringIsRefused() throws IOException
    {
        final List<String> refused = new ArrayList<>();
        table().forEach((nr, entry) ->
        {
            if (entry[1].contains("FL_SC_REFUSE"))
            {
                refused.add(entry[0]);
            }
        });
        assertEquals(List.of("io_uring_setup", "io_uring_enter", "io_uring_register"), refused);
    }

    private static Map<Integer, Call> kernelList() throws IOException
    {
        final Map<Integer, Call> calls = new TreeMap<>();
        try (InputStream in = GateTableTest.class.getResourceAsStream("/gate/syscalls-x86_64.txt"))
        {
            for (final String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
            {
                if (line.isBlank() || line.startsWith("#"))
                {
                    continue;
                }
                final String[] f = line.trim().split("\\s+");
                calls.put(Integer.parseInt(f[0]), new Call(f[1], f[2]));
            }
        }
        return calls;
    }

    /** number: name, flags */
    private static Map<Integer, String[]> table() throws IOException
    {
        final String source = Files.readString(Faultline.ROOT.resolve("native-shims/src/gate_table.c"));
        final Map<Integer, String[]> entries = new TreeMap<>();
        final Matcher m = ENTRY.matcher(source);
        while (m.find())
        {
            final String[] previous = entries.put(Integer.parseInt(m.group(1)), new String[] {m.group(2), m.group(3)});
            assertEquals(null, previous, "two entries for " + m.group(1));
        }
        return entries;
    }
}
