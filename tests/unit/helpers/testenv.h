/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * testenv: the servers' coordinates an integration test reads from the
 * environment (scripts/run-integration.sh exports servers.env).
 */
#ifndef TESTENV_H
#define TESTENV_H

/**
 * test_env() - the value of @k
 * Return: the value; a missing or empty one ends the program (exit 1)
 * with a line saying how these tests are run.
 */
const char *test_env(const char *k);

#endif /* TESTENV_H */
