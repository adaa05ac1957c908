/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * logcap: a libxprt log hook (lx_xprt_log_fn) that keeps the messages, for
 * tests that assert what the library said and how often.
 */
#ifndef LOGCAP_H
#define LOGCAP_H

#include <pthread.h>

#define LOGCAP_MAX 64

struct logcap {
	pthread_mutex_t lock;
	unsigned int n;
	int level[LOGCAP_MAX];
	char msg[LOGCAP_MAX][160];
};

/** logcap_init() - empty @lc */
void logcap_init(struct logcap *lc);

/** logcap_fn() - the hook: pass it with @arg = a struct logcap */
void logcap_fn(void *arg, int level, const char *msg);

/** logcap_count() - messages containing @needle */
unsigned int logcap_count(struct logcap *lc, const char *needle);

/** logcap_dump() - print every message (a failing test's context) */
void logcap_dump(struct logcap *lc);

#endif /* LOGCAP_H */
