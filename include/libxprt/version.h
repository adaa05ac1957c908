/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt's version, as the library that is running says it.
 *
 * The version is written once in the source tree (the VERSION file); the
 * build gives it to the library, the pkg-config file (pkg-config
 * --modversion libxprt says the version a program was built against), the
 * man pages, the benches' --version and the Debian package.  A program
 * that wants to know which library it runs on asks lx_xprt_version().
 * The soname (libxprt.so.1) changes only when the ABI does: the version
 * string is for people and logs, not for deciding what the ABI offers.
 */
#ifndef LIBXPRT_VERSION_H
#define LIBXPRT_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * lx_xprt_version() - the version of the running library
 *
 * Context: any thread, any time (no initialisation needed); does not
 * block.
 *
 * Return: the release this libxprt was built from, such as "0.2.0"
 * (MAJOR.MINOR.PATCH, digits and dots only), in static storage that the
 * caller must not modify or free.  Never NULL.
 */
const char *lx_xprt_version(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_VERSION_H */
