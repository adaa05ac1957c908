// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <string.h>

#include "logcap.h"

void logcap_init(struct logcap *lc)
{
	memset(lc, 0, sizeof(*lc));
	pthread_mutex_init(&lc->lock, NULL);
}

void logcap_fn(void *arg, int level, const char *msg)
{
	struct logcap *lc = arg;

	pthread_mutex_lock(&lc->lock);
	if (lc->n < LOGCAP_MAX) {
		lc->level[lc->n] = level;
		snprintf(lc->msg[lc->n], sizeof(lc->msg[0]), "%s", msg);
		lc->n++;
	}
	pthread_mutex_unlock(&lc->lock);
}

unsigned int logcap_count(struct logcap *lc, const char *needle)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&lc->lock);
	for (i = 0; i < lc->n; i++)
		n += strstr(lc->msg[i], needle) != NULL;
	pthread_mutex_unlock(&lc->lock);
	return n;
}

void logcap_dump(struct logcap *lc)
{
	unsigned int i;

	pthread_mutex_lock(&lc->lock);
	for (i = 0; i < lc->n; i++)
		fprintf(stderr, "log[%u] %d: %s\n", i, lc->level[i],
			lc->msg[i]);
	pthread_mutex_unlock(&lc->lock);
}
