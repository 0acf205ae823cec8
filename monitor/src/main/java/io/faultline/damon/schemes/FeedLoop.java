package io.faultline.damon.schemes;

/**
 * damon_feed_loop_next_input() of mm/damon/core.c: the next input of a proportional feedback
 * loop whose score is positively proportional to its input, toward a score of 10,000
 * (Documentation/mm/damon/design.rst, "Aim-oriented Feedback-driven Auto-tuning"):
 * {@code next = max(last * ((goal - score) / goal + 1), 10000)} in integer arithmetic; a score at
 * or above twice the goal drops the input to the minimum at once. The kernel's unsigned long is
 * a 63-bit long here; Long.MAX_VALUE stands for ULONG_MAX.
 */
public final class FeedLoop
{
    public static final long GOAL = 10_000;
    /** Keeps the compensation from ever being zero. */
    public static final long MIN_INPUT = 10_000;

    private FeedLoop()
    {
    }

    public static long nextInput(final long lastInput, final long score)
    {
        if (score == GOAL)
        {
            return lastInput;
        }
        if (score >= GOAL * 2)
        {
            return MIN_INPUT;
        }
        final boolean overAchieving = score > GOAL;
        final long diff = overAchieving ? score - GOAL : GOAL - score;
        final long compensation = lastInput < Long.MAX_VALUE / diff ? lastInput * diff / GOAL : lastInput / GOAL * diff;
        if (overAchieving)
        {
            return Math.max(lastInput - compensation, MIN_INPUT);
        }
        return lastInput < Long.MAX_VALUE - compensation ? lastInput + compensation : Long.MAX_VALUE;
    }
}
