// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * quietfork: see quietfork.h.
 */
#include "quietfork.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

/* Whether every thread but the caller sleeps in a system call now. */
static bool others_asleep(void)
{
	DIR *d = opendir("/proc/self/task");
	char path[64], line[256], *st;
	pid_t me = gettid();
	struct dirent *e;
	bool all = true;
	FILE *f;

	if (!d)
		return true;
	while (all && (e = readdir(d))) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == me)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
			 atoi(e->d_name));
		f = fopen(path, "r");
		if (!f)
			continue; /* gone */
		/* "pid (comm) S ...": the state follows the last ')' */
		st = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		all = !st || st[1] != ' ' || st[2] == 'S';
		fclose(f);
	}
	closedir(d);
	return all;
}

pid_t quiet_fork(void)
{
	unsigned int i;

	for (i = 0; i < 2000 && !others_asleep(); i++)
		usleep(1000);
	return fork();
}

void child_exit(int code)
{
#if defined(__SANITIZE_ADDRESS__)
	__lsan_do_leak_check();
#endif
	_exit(code);
}

int child_wait(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return -1;
	}
	if (WIFEXITED(st)) {
		if (WEXITSTATUS(st))
			fprintf(stderr, "child failed its check %d\n",
				WEXITSTATUS(st));
		return WEXITSTATUS(st);
	}
	fprintf(stderr, "child killed by signal %d\n",
		WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return -1;
}
