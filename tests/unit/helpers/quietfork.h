/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * quietfork: fork() a test process that has threads running (a threaded
 * client's, a fake server's), in every build the tests run in, and end
 * the child.
 */
#ifndef QUIETFORK_H
#define QUIETFORK_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * ThreadSanitizer cannot start a thread in a child forked with threads
 * running: by default it refuses (die_after_fork), and allowed to, it
 * dies on the new thread's id, which its registry still holds for a
 * thread of the parent's.  So a child that makes clients of its own makes
 * caller-driven ones under TSan (they start no thread), in the parent's
 * mode in the other builds.
 */
#if defined(__SANITIZE_THREAD__)
#define QUIETFORK_CHILD_THREADS false
#else
#define QUIETFORK_CHILD_THREADS true
#endif

/**
 * quiet_fork() - fork() once every other thread sleeps in a system call
 *
 * As the library's threads and a fake server's do between calls: none is
 * then inside the allocator.  glibc's malloc is fork-safe anyway; the
 * sanitizers' allocators (GCC 12's) are not, and a child that inherited
 * one of their locks held would hang in its first malloc() (the library's
 * threads allocate on their first use of a shared pool, right after a
 * call).  Waits up to 2 s for that, then forks all the same.
 * Return: as fork().
 */
pid_t quiet_fork(void);

/**
 * child_exit() - end a child of quiet_fork() with @code
 *
 * Without cmocka's or stdio's exit handlers (the parent's buffered output
 * would come out twice).  Under ASan it first looks for leaks: memory the
 * child lost (what a destroy there left behind) fails the child with
 * LeakSanitizer's exit code.
 */
__attribute__((noreturn)) void child_exit(int code);

/**
 * child_wait() - wait for a child of quiet_fork() to end
 *
 * Says on stderr how it ended unless with 0 ("child failed its check
 * N", or the signal that killed it).
 * Return: its exit status (0 .. 255); -1 when it did not exit.
 */
int child_wait(pid_t pid);

#endif /* QUIETFORK_H */
