/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers every layer's .c files share: container_of, branch hints,
 * cache-line alignment, ThreadSanitizer annotations, time.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_UTIL_H
#define LX_XPRT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define lx_xprt_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

#define lx_xprt_likely(x)	  __builtin_expect(!!(x), 1)
#define lx_xprt_unlikely(x)	  __builtin_expect(!!(x), 0)

#define LX_XPRT_CACHELINE	  64
#define lx_xprt_cacheline_aligned __attribute__((aligned(LX_XPRT_CACHELINE)))

#define LX_XPRT_ARRAY_SIZE(a)	  (sizeof(a) / sizeof((a)[0]))
#define LX_XPRT_MIN(a, b)	  ((a) < (b) ? (a) : (b))
#define LX_XPRT_MAX(a, b)	  ((a) > (b) ? (a) : (b))

/*
 * ThreadSanitizer cannot see the inline-assembly atomics liburcu uses for
 * its lock-free stacks and queues (Debian 12 ships liburcu 0.13, built
 * without compiler atomic builtins).  Code that hands an object from one
 * thread to another through such a structure states the happens-before
 * edge explicitly: release on the producing side, acquire on the consuming
 * side.  In other builds these compile to nothing.
 */
#if defined(LX_XPRT_TSAN) && LX_XPRT_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define lx_xprt_tsan_acquire(p) __tsan_acquire((void *)(p))
#define lx_xprt_tsan_release(p) __tsan_release((void *)(p))
#else
#define lx_xprt_tsan_acquire(p) ((void)(p))
#define lx_xprt_tsan_release(p) ((void)(p))
#endif

/*
 * The socket calls of the data path, as bare system calls: glibc's
 * wrappers are cancellation points and make every call enable and
 * disable asynchronous cancellation around it (~40 instructions, more
 * than the rest of the wrapper), and a library's data path is no place
 * for thread cancellation anyway (it would leave locks held and slots
 * claimed).  The sanitizer builds keep the wrappers, which they
 * intercept (ThreadSanitizer orders threads through a descriptor's
 * reads and writes, AddressSanitizer checks the buffers).
 */
#if (defined(LX_XPRT_TSAN) && LX_XPRT_TSAN) || defined(__SANITIZE_ADDRESS__)
#define lx_xprt_sys_recv(fd, buf, len, flags) recv(fd, buf, len, flags)
#define lx_xprt_sys_sendmsg(fd, msg, flags)   sendmsg(fd, msg, flags)
#define lx_xprt_sys_recvmsg(fd, msg, flags)   recvmsg(fd, msg, flags)
#else
#define lx_xprt_sys_recv(fd, buf, len, flags) \
	((ssize_t)syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL))
#define lx_xprt_sys_sendmsg(fd, msg, flags) \
	((ssize_t)syscall(SYS_sendmsg, fd, msg, flags))
#define lx_xprt_sys_recvmsg(fd, msg, flags) \
	((ssize_t)syscall(SYS_recvmsg, fd, msg, flags))
#endif

/** lx_xprt_now_ns() - CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t lx_xprt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** lx_xprt_ns_to_timespec() - monotonic nanoseconds to an absolute timespec */
static inline struct timespec lx_xprt_ns_to_timespec(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};
	return ts;
}

#endif /* LX_XPRT_UTIL_H */
