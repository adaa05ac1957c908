# mk/package.mk: install, uninstall and the Debian packages.
# Included by the top-level Makefile, in its order.

# ---------------------------------------------------------------- install
LIB_MANS := $(sort $(wildcard docs/man/*.3))

install: lib
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/libxprt \
	    $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libxprt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf libxprt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libxprt.so
	install -m 0644 $(PUB_HDRS) $(DESTDIR)$(INCLUDEDIR)/libxprt/
	install -d $(DESTDIR)$(INCLUDEDIR)/libxprt/proto
	install -m 0644 $(PROTO_HDRS) $(DESTDIR)$(INCLUDEDIR)/libxprt/proto/
	$(PC_SED) libxprt.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/libxprt.pc
	install -d $(DESTDIR)$(MANDIR)/man3
	install -m 0644 $(LIB_MANS) $(DESTDIR)$(MANDIR)/man3/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libxprt.a $(DESTDIR)$(LIBDIR)/libxprt.so \
	    $(DESTDIR)$(LIBDIR)/$(LIB_SONAME) \
	    $(DESTDIR)$(LIBDIR)/libxprt.so.$(VERSION) \
	    $(DESTDIR)$(PKGCONFIGDIR)/libxprt.pc \
	    $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(LIB_MANS)))
	rm -rf $(DESTDIR)$(INCLUDEDIR)/libxprt

# ================================================================ packaging
# (owned by pkg: debian/, scripts/check-deb.sh, check-version.sh,
# deb-symbols.py)
# check-version: VERSION and debian/changelog's newest entry agree (the
# version is written once, in VERSION).
# check-deb: the Debian packages (libxprt1, libxprt-dev, libxprt-tools,
# libxprt-fio)
# built with dpkg-buildpackage from a scratch copy of the tree (plain
# build, parallel=2, no second make check), checked with lintian,
# unpacked into build/deb/root and run from there; never installed on
# this system.  About a minute and a half.
.PHONY: check-version check-deb

check-version:
	@scripts/check-version.sh

check-deb: check-version
	@scripts/deps.sh --check deb >/dev/null 2>&1 || scripts/deps.sh deb
	scripts/check-deb.sh
# ============================================================ end packaging
