/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inside the URL parser: url.c splits and decodes, url_args.c knows the
 * arguments of each scheme.
 */
#ifndef LX_URL_INT_H
#define LX_URL_INT_H

#include <stddef.h>

#include <libxprt/url.h>

/*
 * lx_url__check_args() - run @u's arguments through its scheme's table on
 * scratch options; on failure write the reason to @err (@len bytes).
 * Return: 0, -EINVAL, -EPROTONOSUPPORT or -ENOTSUP (see lx_url_parse()).
 */
int lx_url__check_args(struct lx_url *u, char *err, size_t len);

#endif /* LX_URL_INT_H */
