package io.faultline.sim.stacks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ElfSymbols and the Symbolizer on a program this test compiles: the program prints, for two of
 * its functions, the address it runs them at and the /proc/self/maps line that holds it, which
 * is what a trace's code-map events say; the file offset computed from them names the function.
 * Once with .symtab, once stripped (only exported functions, in .dynsym, keep their names).
 */
class ElfSymbolsTest
{
    private static final String PROGRAM = String.join("\n",
        "#include <stdio.h>",
        "#include <string.h>",
        "#include <stdlib.h>",
        "__attribute__((noinline)) int alpha(int x) { return x * 3 + 1; }",
        "__attribute__((noinline)) static int beta(int x) { return alpha(x) * 7 - 2; }",
        "static void where(const char *name, void *f) {",
        "    FILE *m = fopen(\"/proc/self/maps\", \"r\"); char line[512];",
        "    unsigned long a = (unsigned long)f;",
        "    while (fgets(line, sizeof line, m)) {",
        "        unsigned long s, e, off; char perms[5];",
        "        if (sscanf(line, \"%lx-%lx %4s %lx\", &s, &e, perms, &off) == 4 && a >= s && a < e)",
        "            printf(\"%s %lx %lx %lx\\n\", name, a, s, off);",
        "    }",
        "    fclose(m);",
        "}",
        "int main(int argc, char **argv) {",
        "    where(\"alpha\", (void *)alpha); where(\"beta\", (void *)beta);",
        "    return beta(argc) == 0;",
        "}", "");

    @TempDir
    Path tmp;

    @Test
    void aFunctionIsNamedFromItsFileOffsetWithSymtabAndFromDynsymWhenStripped() throws Exception
    {
        final Path source = tmp.resolve("p.c");
        Files.writeString(source, PROGRAM);
        final Path full = compile(source, "full", "-O1", "-g", "-rdynamic");
        final Path stripped = compile(source, "stripped", "-O1", "-s", "-rdynamic");
        for (final Path exe : List.of(full, stripped))
        {
            final ElfSymbols symbols = ElfSymbols.read(exe);
            final Symbolizer symbolizer = new Symbolizer();
            for (final String line : run(exe))
            {
                final String[] w = line.split(" ");
                final long address = Long.parseUnsignedLong(w[1], 16);
                final Symbolizer.CodeMap map = new Symbolizer.CodeMap(Long.parseUnsignedLong(w[2], 16), address + 4096,
                    Long.parseUnsignedLong(w[3], 16), exe.toString());
                final long fileOffset = address - map.start() + map.offset();
                // the static beta is in .symtab only; alpha is exported (-rdynamic): in .dynsym too
                final String expected = exe == stripped && w[0].equals("beta") ? null : w[0];
                assertEquals(expected, symbols.functionAtFileOffset(fileOffset), exe + ": " + line);
                assertEquals(expected, symbols.functionAtFileOffset(fileOffset + 2), exe + ": inside " + line);
                // frame 0 is looked up as is; a return address less one: the byte before a function is not it
                assertEquals(expected == null ? exe.getFileName() + "+0x" + Long.toHexString(fileOffset) : expected,
                    symbolizer.name(map, address, false));
                assertTrue(!w[0].equals(symbolizer.name(map, address, true)), "a return address at " + w[0]
                    + "'s start follows a call before it");
            }
        }
        assertEquals("0x1234", new Symbolizer().name(null, 0x1234, true));
        assertNull(ElfSymbols.read(full).functionAt(0));
        final Path notElf = tmp.resolve("not-elf");
        Files.writeString(notElf, "hello, this is text and no ELF file at all, long enough for a header".repeat(2));
        final IOException ex = assertThrows(IOException.class, () -> ElfSymbols.read(notElf));
        assertTrue(ex.getMessage().endsWith("is no little-endian 64-bit ELF file"), ex.getMessage());
    }

    private static Path compile(final Path source, final String name, final String... flags) throws Exception
    {
        final Path exe = source.resolveSibling(name);
        final List<String> command = new ArrayList<>(List.of("gcc", "-o", exe.toString(), source.toString()));
        command.addAll(List.of(flags));
        final Process gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String log = new String(gcc.getInputStream().readAllBytes());
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS) && gcc.exitValue() == 0, "gcc: " + log);
        return exe;
    }

    private static List<String> run(final Path exe) throws Exception
    {
        final Process p = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        final List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "ran");
        assertEquals(2, lines.size(), String.valueOf(lines));
        return lines;
    }
}
