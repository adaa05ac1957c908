#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The version is written once, in VERSION; debian/changelog's newest entry
# must be that version (its upstream part: no epoch, no Debian revision),
# so that a release is one edit of VERSION and one changelog entry
# (dch -v VERSION-1).  The man pages say it too (make check-man, from
# mkman.sh).  Needs nothing but sed: run early by make check.
#
# usage: scripts/check-version.sh      (make check-version)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(cat VERSION)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
	{ echo "check-version: VERSION '$version' is not MAJOR.MINOR.PATCH" >&2; exit 1; }
# "libxprt (1:0.1.0-1) unstable; urgency=medium" -> 0.1.0
deb=$(sed -n '1s/^libxprt (\([^)]*\)).*/\1/p' debian/changelog)
[[ -n $deb ]] || { echo "check-version: debian/changelog's first line is not 'libxprt (VERSION-N) ...'" >&2; exit 1; }
up=${deb#*:}
up=${up%-*}
if [[ $up != "$version" ]]; then
	echo "check-version: VERSION says $version, debian/changelog's newest entry $deb:" \
		"add an entry (dch -v $version-1) or fix VERSION" >&2
	exit 1
fi
echo "check-version: $version (VERSION), $deb (debian/changelog)"
