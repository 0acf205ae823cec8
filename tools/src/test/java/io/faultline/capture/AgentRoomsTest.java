package io.faultline.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's rooms as docs/ARCHITECTURE.md draws them ("The agent"): every file of
 * native-shims/src belongs to exactly one room of the table there, and every {@code #include}
 * of an agent header runs from a room to one on a lower level of it, so no call runs up and
 * the include graph has no circle. A file added without a room, or an include that runs up or
 * sideways, fails here until the code or the drawing changes.
 */
class AgentRoomsTest
{
    private static final Path SOURCES = Path.of("..", "native-shims", "src");
    private static final Path ARCHITECTURE = Path.of("..", "docs", "ARCHITECTURE.md");
    /** a row of the rooms table: | level | room | files | what | */
    private static final Pattern ROW = Pattern.compile("^\\| (\\d+) \\| (\\w+) \\| ([^|]*) \\|.*\\|$");
    private static final Pattern FILE = Pattern.compile("`([\\w.]+\\.[ch])`");
    private static final Pattern INCLUDE = Pattern.compile("^#include \"([^\"]+)\"", Pattern.MULTILINE);

    @Test
    void everyIncludeRunsDownTheRoomsOfTheArchitecture() throws IOException
    {
        final Map<String, String> roomOf = new TreeMap<>();
        final Map<String, Integer> level = new TreeMap<>();
        for (final String line : agentSection())
        {
            final Matcher row = ROW.matcher(line);
            if (!row.matches())
            {
                continue;
            }
            final String room = row.group(2);
            assertEquals(null, level.put(room, Integer.valueOf(row.group(1))), "room " + room + " drawn twice");
            final Matcher file = FILE.matcher(row.group(3));
            while (file.find())
            {
                final String previous = roomOf.put(file.group(1), room);
                assertEquals(null, previous, file.group(1) + " is in rooms " + previous + " and " + room);
            }
        }
        assertTrue(level.size() > 20, "only " + level.size() + " rooms read from " + ARCHITECTURE);

        final Set<String> sources = new TreeSet<>();
        try (Stream<Path> files = Files.list(SOURCES))
        {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".c") || n.endsWith(".h"))
                .forEach(sources::add);
        }
        assertEquals(sources, roomOf.keySet(), "the files of native-shims/src and those of the rooms table");

        final List<String> wrong = new ArrayList<>();
        final Set<String> arrows = new TreeSet<>();
        for (final String file : sources)
        {
            final String from = roomOf.get(file);
            final Matcher include = INCLUDE.matcher(Files.readString(SOURCES.resolve(file)));
            while (include.find())
            {
                final String to = roomOf.get(include.group(1));
                if (to == null || to.equals(from))
                {
                    continue; // a public header (native-shims/include), or the room's own
                }
                arrows.add(from + " -> " + to);
                if (level.get(from) <= level.get(to))
                {
                    wrong.add(file + " includes " + include.group(1) + ": room " + from + " (level " + level.get(from)
                        + ") does not lie above room " + to + " (level " + level.get(to) + ")");
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertTrue(arrows.size() > 100, "only " + arrows.size() + " arrows between rooms: are the includes read?");
    }

    private static List<String> agentSection() throws IOException
    {
        final List<String> lines = Files.readAllLines(ARCHITECTURE);
        final int start = lines.indexOf("## The agent");
        assertTrue(start >= 0, "no section \"## The agent\" in " + ARCHITECTURE);
        int end = start + 1;
        while (end < lines.size() && !lines.get(end).startsWith("## "))
        {
            end++;
        }
        return lines.subList(start, end);
    }
}
