/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mem-bench: the bench engine against its in-memory back-end.  It measures
 * the engine's own cost per operation (zero latency) and exercises every
 * engine feature end to end without a server.
 */
#include "engine/engine.h"
#include "mem_backend.h"

int main(int argc, char **argv)
{
	return bench_main(&bench_mem_backend, argc, argv);
}
