// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spawn: scripted test servers as child processes (see spawn.h).
 */
#include "spawn.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int spawn_server(char *const argv[], struct spawned *s)
{
	char line[128];
	size_t got = 0;
	int fds[2], err = -EPROTO;
	struct pollfd pfd;
	pid_t p;

	if (pipe(fds) < 0)
		return -errno;
	p = fork();
	if (p < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (p == 0) {
		/* never outlive the test */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	/* the first line, within 10 s */
	while (got < sizeof(line) - 1 && poll(&pfd, 1, 10000) > 0) {
		ssize_t r = read(fds[0], line + got, 1);

		if (r <= 0)
			break;
		if (line[got] == '\n') {
			unsigned int v;

			line[got] = '\0';
			if (sscanf(line, "PORT %u", &v) == 1 && v && v < 65536) {
				s->port = (uint16_t)v;
				err = 0;
			}
			break;
		}
		got++;
	}
	s->pid = p;
	s->out = fds[0];
	if (err) {
		spawn_stop(s);
		return err;
	}
	return 0;
}

void spawn_stop(struct spawned *s)
{
	pid_t pid = s->pid;
	int i, st;

	if (s->out >= 0)
		close(s->out);
	s->out = -1;
	s->pid = 0;
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}
