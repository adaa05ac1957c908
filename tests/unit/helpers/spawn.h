/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spawn: run a scripted test server (the Python ones in tests/hostile/) as a
 * child process
 * for the duration of a test.  The server prints "PORT <n>" as its first
 * line on stdout; spawn_server() returns once it has.
 */
#ifndef SPAWN_H
#define SPAWN_H

#include <stdint.h>
#include <sys/types.h>

struct spawned {
	pid_t pid;
	int out; /* the child's stdout, kept open so it never gets SIGPIPE */
	uint16_t port;
};

/**
 * spawn_server() - start @argv (argv[0] is looked up in PATH) and read
 * its port
 * Return: 0 with @s filled, or a negative errno (the child is reaped on
 * failure).
 */
int spawn_server(char *const argv[], struct spawned *s);

/** spawn_stop() - SIGTERM, then SIGKILL after a second; reap */
void spawn_stop(struct spawned *s);

#endif /* SPAWN_H */
