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

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's rooms as docs/ARCHITECTURE.md draws them ("The agent"), checked against the code:
 * <ul>
 * <li>every file of native-shims/src (its folders too) belongs to exactly one room of the table there, and
 * every {@code #include} of an agent header runs from a room to one on a lower level of it, and no room but an
 * engine's includes an engine's header (the others ask the engine in use through its ops, engine.h);</li>
 * <li>every function is declared only in its own room (a header of the room whose file defines it), so that a
 * call, which needs the declaration, runs down an include: with the first rule, no call runs up and the calls
 * between rooms have no circle;</li>
 * <li>the hooks layer: every name the agent exports ({@code FL_EXPORT}: the libc calls it wraps, its entry
 * points) is defined in native-shims/src/hooks/, whose rooms lie above all others, and no file outside that
 * folder calls one: such a call would run through the agent's own wrapper, up through every room; checked on
 * the sources and on the built objects ({@code nm}: no undefined symbol of an object below the hooks is one that
 * libfaultline.so exports).</li>
 * </ul>
 * A file added without a room, an include that runs up or sideways, a declaration in another room's header,
 * or an agent call to an exported name fails here until the code or the drawing changes.
 */
class AgentRoomsTest
{
    private static final Path SOURCES = Path.of("..", "native-shims", "src");
    private static final Path ARCHITECTURE = Path.of("..", "docs", "ARCHITECTURE.md");
    private static final String HOOKS = "hooks/";
    /** the rooms of the engines (engine_uffd, engine_sigbus, ...); the contract, engine.h, is room "engine" */
    private static final String ENGINE = "engine_";
    /** a row of the rooms table: | level | room | files | what | */
    private static final Pattern ROW = Pattern.compile("^\\| (\\d+) \\| (\\w+) \\| ([^|]*) \\|.*\\|$");
    private static final Pattern FILE = Pattern.compile("`([\\w./]+\\.[ch])`");
    private static final Pattern INCLUDE = Pattern.compile("^#include \"([^\"]+)\"", Pattern.MULTILINE);
    /** an exported definition: FL_EXPORT, the return type, the name; a symbol name of its own after __asm__ */
    private static final Pattern EXPORT = Pattern.compile(
        "^FL_EXPORT\\b[^(;]*?\\b(\\w+)\\s*\\((?:[^;{]*?__asm__\\(\"(\\w+)\"\\))?", Pattern.MULTILINE);
    /** a function declared or defined at the top level (not static): type words, the name, the parameters */
    private static final Pattern FUNCTION = Pattern.compile(
        "^(?!static\\b|typedef\\b|return\\b|FL_EXPORT\\b)(?:[A-Za-z_]\\w*[\\s*]+)+\\**([A-Za-z_]\\w*)\\s*\\(([^;{}]*?)\\)"
            + "\\s*(?:__attribute__\\s*\\(\\(.*?\\)\\)\\s*)?([;{])",
        Pattern.MULTILINE | Pattern.DOTALL);

    private static final Map<String, String> ROOM_OF = new TreeMap<>();
    private static final Map<String, Integer> LEVEL = new TreeMap<>();
    private static final Map<String, String> TEXT = new TreeMap<>();

    @BeforeAll
    static void read() throws IOException
    {
        for (final String line : agentSection())
        {
            final Matcher row = ROW.matcher(line);
            if (!row.matches())
            {
                continue;
            }
            final String room = row.group(2);
            assertEquals(null, LEVEL.put(room, Integer.valueOf(row.group(1))), "room " + room + " drawn twice");
            final Matcher file = FILE.matcher(row.group(3));
            while (file.find())
            {
                final String previous = ROOM_OF.put(file.group(1), room);
                assertEquals(null, previous, file.group(1) + " is in rooms " + previous + " and " + room);
            }
        }
        assertTrue(LEVEL.size() > 20, "only " + LEVEL.size() + " rooms read from " + ARCHITECTURE);
        try (Stream<Path> files = Files.walk(SOURCES))
        {
            for (final Path p : (Iterable<Path>)files.filter(Files::isRegularFile)::iterator)
            {
                final String name = SOURCES.relativize(p).toString().replace('\\', '/');
                if (name.endsWith(".c") || name.endsWith(".h"))
                {
                    TEXT.put(name, Files.readString(p));
                }
            }
        }
    }

    @Test
    void everyIncludeRunsDownTheRoomsOfTheArchitecture()
    {
        assertEquals(TEXT.keySet(), ROOM_OF.keySet(), "the files of native-shims/src and those of the rooms table");
        final List<String> wrong = new ArrayList<>();
        final Set<String> arrows = new TreeSet<>();
        for (final String file : TEXT.keySet())
        {
            final String from = ROOM_OF.get(file);
            final Matcher include = INCLUDE.matcher(TEXT.get(file));
            while (include.find())
            {
                final String header = resolve(file, include.group(1));
                final String to = ROOM_OF.get(header);
                if (to == null || to.equals(from))
                {
                    continue; // a public header (native-shims/include), or the room's own
                }
                arrows.add(from + " -> " + to);
                if (LEVEL.get(from) <= LEVEL.get(to))
                {
                    wrong.add(file + " includes " + header + ": room " + from + " (level " + LEVEL.get(from)
                        + ") does not lie above room " + to + " (level " + LEVEL.get(to) + ")");
                }
                if (to.startsWith(ENGINE) && !from.startsWith(ENGINE))
                {
                    wrong.add(file + " includes " + header + ": an engine's own state is its own; room " + from
                        + " asks the engine in use through its ops (engine.h)");
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertTrue(arrows.size() > 100, "only " + arrows.size() + " arrows between rooms: are the includes read?");
    }

    @Test
    void everyFunctionIsDeclaredInItsOwnRoomOnly()
    {
        final Map<String, String> definedIn = new TreeMap<>();
        final Map<String, List<String>> declaredIn = new TreeMap<>();
        for (final Map.Entry<String, String> e : TEXT.entrySet())
        {
            final Matcher f = FUNCTION.matcher(code(e.getValue(), false));
            while (f.find())
            {
                if (f.group(3).equals("{"))
                {
                    final String previous = definedIn.put(f.group(1), e.getKey());
                    assertEquals(null, previous, f.group(1) + " is defined in " + previous + " and " + e.getKey());
                }
                else
                {
                    declaredIn.computeIfAbsent(f.group(1), k -> new ArrayList<>()).add(e.getKey());
                }
            }
        }
        assertTrue(definedIn.size() > 200, "only " + definedIn.size() + " functions found defined: is the code read?");
        final List<String> wrong = new ArrayList<>();
        int crossing = 0;
        for (final Map.Entry<String, List<String>> e : declaredIn.entrySet())
        {
            final String home = definedIn.get(e.getKey());
            if (home == null)
            {
                continue; // libc's, or defined in assembly beside its declaration
            }
            for (final String file : e.getValue())
            {
                if (!ROOM_OF.get(file).equals(ROOM_OF.get(home)))
                {
                    wrong.add(e.getKey() + " is declared in " + file + " (room " + ROOM_OF.get(file) + ") but defined in "
                        + home + " (room " + ROOM_OF.get(home) + ")");
                }
                else if (file.endsWith(".h"))
                {
                    crossing++;
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertTrue(crossing > 200, "only " + crossing + " functions declared in headers: are the headers read?");
    }

    @Test
    void nothingBelowTheHooksCallsANameTheAgentExports()
    {
        final Map<String, String> exported = new TreeMap<>();
        for (final Map.Entry<String, String> e : TEXT.entrySet())
        {
            final Matcher x = EXPORT.matcher(code(e.getValue(), true));
            while (x.find())
            {
                exported.put(x.group(2) != null ? x.group(2) : x.group(1), e.getKey());
            }
        }
        for (final String name : List.of("mmap", "read", "write", "syscall", "sigaction", "setlocale", "faultline_attach"))
        {
            assertTrue(exported.containsKey(name), name + " not found among the exported names " + exported.keySet());
        }
        final List<String> wrong = new ArrayList<>();
        exported.forEach((name, file) -> {
            if (!file.startsWith(HOOKS))
            {
                wrong.add(name + " is exported from " + file + ", outside " + HOOKS);
            }
        });

        int hooksLowest = Integer.MAX_VALUE;
        int othersHighest = Integer.MIN_VALUE;
        for (final Map.Entry<String, String> e : ROOM_OF.entrySet())
        {
            final int level = LEVEL.get(e.getValue());
            if (e.getKey().startsWith(HOOKS))
            {
                hooksLowest = Math.min(hooksLowest, level);
            }
            else
            {
                othersHighest = Math.max(othersHighest, level);
            }
        }
        assertTrue(hooksLowest > othersHighest, "the hooks' rooms (lowest level " + hooksLowest
            + ") lie above every other room (highest level " + othersHighest + ")");

        final Pattern call = Pattern.compile("(?<![\\w.]|->)\\b(" + String.join("|", exported.keySet()) + ")\\s*\\(");
        for (final Map.Entry<String, String> e : TEXT.entrySet())
        {
            if (e.getKey().startsWith(HOOKS))
            {
                continue;
            }
            final String code = code(e.getValue(), false);
            final Matcher m = call.matcher(code);
            while (m.find())
            {
                final int line = 1 + (int)code.substring(0, m.start()).chars().filter(c -> c == '\n').count();
                wrong.add(e.getKey() + ":" + line + " calls " + m.group(1) + ", which the agent exports from "
                    + exported.get(m.group(1)) + ": call the system call through fl_syscall (sys.h)");
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /**
     * The same rule on the built code, where a macro or an inline function of a libc header cannot hide a call:
     * no object of a file outside src/hooks/ has an undefined symbol that libfaultline.so exports (the dynamic
     * linker would bind it to the agent's own definition).
     */
    @Test
    void noObjectBelowTheHooksReferencesAnExportedSymbol() throws IOException, InterruptedException
    {
        final Path built = Faultline.ROOT.resolve("native-shims/target/classes/native/linux-x86_64");
        final Path library = built.resolve("libfaultline.so");
        assertTrue(Files.isRegularFile(library), library + " is not built: mvn -pl tools -am builds it first");
        final Set<String> exported = new TreeSet<>(nm("-D", "--defined-only", library.toString()));
        assertTrue(exported.containsAll(List.of("read", "syscall", "sigaction", "faultline_attach")),
            "the exported symbols read from " + library + ": " + exported);
        final List<String> wrong = new ArrayList<>();
        int objects = 0;
        for (final String source : TEXT.keySet())
        {
            if (!source.endsWith(".c") || source.startsWith(HOOKS))
            {
                continue;
            }
            final Path object = built.resolve("obj").resolve(source.replaceAll("\\.c$", ".o"));
            assertTrue(Files.isRegularFile(object), object + " is not built");
            objects++;
            for (final String symbol : nm("-u", object.toString()))
            {
                if (exported.contains(symbol))
                {
                    wrong.add(source + " refers to " + symbol + ", which libfaultline.so exports");
                }
            }
        }
        assertTrue(objects > 30, "only " + objects + " objects below the hooks");
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /** the symbol names nm lists (its last column, without a version) */
    private static List<String> nm(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("nm"));
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", command) + ": " + out);
        final List<String> names = new ArrayList<>();
        for (final String line : out.split("\n"))
        {
            final String[] f = line.trim().split("\\s+");
            if (f.length >= 2)
            {
                names.add(f[f.length - 1].replaceAll("@.*", ""));
            }
        }
        return names;
    }

    /** an included name as the compiler finds it: beside the including file, else in src/ (-Isrc) */
    private static String resolve(final String from, final String included)
    {
        final int slash = from.lastIndexOf('/');
        final String beside = slash < 0 ? included : from.substring(0, slash + 1) + included;
        return TEXT.containsKey(beside) ? beside : included;
    }

    /** the code without its comments, and without its string and character literals unless kept (lines kept) */
    static String code(final String c, final boolean strings)
    {
        final StringBuilder out = new StringBuilder(c.length());
        int i = 0;
        while (i < c.length())
        {
            final char ch = c.charAt(i);
            if (ch == '/' && i + 1 < c.length() && c.charAt(i + 1) == '*')
            {
                final int end = c.indexOf("*/", i + 2);
                final int stop = end < 0 ? c.length() : end + 2;
                c.substring(i, stop).chars().filter(x -> x == '\n').forEach(x -> out.append('\n'));
                out.append(' ');
                i = stop;
            }
            else if (ch == '/' && i + 1 < c.length() && c.charAt(i + 1) == '/')
            {
                while (i < c.length() && c.charAt(i) != '\n')
                {
                    i++;
                }
            }
            else if (ch == '"' || ch == '\'')
            {
                final int from = i++;
                while (i < c.length() && c.charAt(i) != ch)
                {
                    i += c.charAt(i) == '\\' ? 2 : 1;
                }
                i = Math.min(i + 1, c.length());
                out.append(strings ? c.substring(from, i) : String.valueOf(ch) + ch);
            }
            else
            {
                out.append(ch);
                i++;
            }
        }
        return out.toString();
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
