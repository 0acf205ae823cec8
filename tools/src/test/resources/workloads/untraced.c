/*
 * untraced: says its pid ("static PID", whether built static or not) and, given an argument,
 * sleeps a second, long enough for the agent to find it among its parent's children
 * (UntracedExecTest builds it statically linked, and dynamically linked).
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	(void)argv;
	printf("static %d\n", (int)getpid());
	fflush(stdout);
	if (argc > 1)
		sleep(1);
	return 0;
}
