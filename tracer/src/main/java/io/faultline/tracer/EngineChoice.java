package io.faultline.tracer;

import io.faultline.format.ShmLayout;

/**
 * Which engine a session runs on (docs/ARCHITECTURE.md, "Engines"). The engine the user chose is
 * checked and kept. Otherwise the userfaultfd engine when this user may have a userfaultfd that
 * handles kernel-mode faults: it is the only complete one (a kernel-mode access to a disabled page
 * waits and succeeds), though the sigbus engine is faster (BENCHMARKS.md, "The sigbus engine");
 * else the sigbus engine, whose user-mode userfaultfd stock distributions grant every user; else,
 * where the session can use it, the mprotect engine (a kernel without userfaultfd). Each fallback
 * says so in one note on stderr, with the reason.
 */
public final class EngineChoice
{
    private EngineChoice()
    {
    }

    /**
     * Sets {@code options.engine}, or throws {@link RecordException} with the one-line reason.
     *
     * @param who the command, for the note ({@code record}, {@code monitor})
     * @param mprotectServes whether the session can run on the mprotect engine at all
     * @return the note to print (the fallback taken and why), or null
     */
    public static String choose(final RecordOptions options, final String who, final boolean mprotectServes)
    {
        if (options.engine == ShmLayout.ENGINE_MPROTECT)
        {
            return null;
        }
        if (options.engine == ShmLayout.ENGINE_SIGBUS)
        {
            try
            {
                Preflight.checkUserModeUserfaultfd();
            }
            catch (final RecordException ex)
            {
                throw new RecordException(ex.getMessage() + "; record with --engine mprotect", ex.problem());
            }
            return null;
        }
        try
        {
            Preflight.checkUserfaultfd();
            return null;
        }
        catch (final RecordException ex)
        {
            if (options.engineChosen)
            {
                throw ex;
            }
            try
            {
                Preflight.checkUserModeUserfaultfd();
                options.engine = ShmLayout.ENGINE_SIGBUS;
                return "faultline " + who + ": note: " + ex.getMessage() + "; " + verb(who) + " with --engine sigbus instead";
            }
            catch (final RecordException userMode)
            {
                if (!mprotectServes)
                {
                    throw new RecordException(userMode.getMessage() + "; this needs userfaultfd", userMode.problem());
                }
                options.engine = ShmLayout.ENGINE_MPROTECT;
                return "faultline " + who + ": note: " + userMode.getMessage() + "; " + verb(who)
                    + " with --engine mprotect instead";
            }
        }
    }

    private static String verb(final String who)
    {
        return who.equals("monitor") ? "monitoring" : "recording";
    }
}
