// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lx_xprt_version(): the release this library was built from.
 *
 * The string is the VERSION file at the top of the tree, passed by the
 * Makefile as LX_XPRT_VERSION_STRING to this file alone, so that the
 * version is written in one place and the library cannot drift from the
 * .pc file and the package that carry it.
 */
#include <libxprt/version.h>

#ifndef LX_XPRT_VERSION_STRING
#error "LX_XPRT_VERSION_STRING: build through the Makefile (it reads VERSION)"
#endif

const char *lx_xprt_version(void)
{
	return LX_XPRT_VERSION_STRING;
}
