// SPDX-License-Identifier: LGPL-2.1-or-later
/* See testenv.h. */
#include "testenv.h"

#include <stdio.h>
#include <stdlib.h>

const char *test_env(const char *k)
{
	const char *v = getenv(k);

	if (!v || !*v) {
		fprintf(stderr, "missing %s: run through make integration\n",
			k);
		exit(1);
	}
	return v;
}
