# mk/fio.mk: libxprt's fio engine (fio/), an object fio loads with
# ioengine=external:PATH.  Included by the top-level Makefile, in its order.
#
# It is compiled against the headers of the fio it is loaded into: Debian's
# fio source package at the installed fio's version, fetched and configured
# as Debian's build configures it by scripts/fio-source.sh into the ignored
# .cache/fio (network the first time).  Never vendored.  libxprt is linked
# in statically; the object exports the one symbol fio looks up.

FIO_ENGINE      := $(O)/fio/libxprt-fio.so
FIO_ENGINE_SRCS := $(sort $(wildcard fio/*.c))
FIO_ENGINE_OBJS := $(FIO_ENGINE_SRCS:%.c=$(O)/obj/%.o)
FIO_CACHE       ?= .cache/fio
# the configured fio source tree's path, written once per installed fio
FIO_SOURCE      := $(O)/fio/fio-source
FIO_VERSION_NOW := $(shell dpkg-query -W -f='$${Version}' fio 2>/dev/null)

# FIO_SRC_DIR=DIR: a fio source tree unpacked already (the Debian
# package's fiosrc/: package builds have no network), only configured
FIO_SRC_DIR ?=
$(FIO_SOURCE): scripts/fio-source.sh $(O)/fio/fio-version-$(FIO_VERSION_NOW)
	@mkdir -p $(@D)
	scripts/fio-source.sh $(if $(FIO_SRC_DIR),--configure $(FIO_SRC_DIR),$(FIO_CACHE)) \
	    | tail -1 >$@.tmp && mv $@.tmp $@

$(O)/fio/fio-version-$(FIO_VERSION_NOW):
	@mkdir -p $(@D)
	rm -f $(O)/fio/fio-version-* && touch $@

# engine.c includes fio's headers: their flags (fio's Makefile: large
# files, BITS_PER_LONG, config-host.h first), GNU C as fio is written, and
# fio's tree as a system directory so its headers' warnings stay its own
# (fio_engine_cflags TREE: also for the RDMA guest's fio, mk/rdma.mk)
fio_engine_cflags = $(filter-out -std=c11,$(CFLAGS_ALL)) \
    -std=gnu11 -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 \
    -DBITS_PER_LONG=64 -DFIO_INTERNAL -DFIO_EXTERNAL_ENGINE \
    -isystem $(1) -include $(1)/config-host.h
$(O)/obj/fio/engine.o: $(FIO_SOURCE)
$(O)/obj/fio/engine.o: CFLAGS_ALL := \
    $(call fio_engine_cflags,$$(cat $(FIO_SOURCE)))

# the engine's link (FIO_ENGINE_LINK ENGINE_O: with that engine.o)
FIO_ENGINE_LINK = $(CC) -shared -o $@ $(1) \
    $(filter-out $(O)/obj/fio/engine.o,$(FIO_ENGINE_OBJS)) $(LIB_A) \
    $(LDFLAGS_ALL) -Wl,--version-script=fio/libxprt-fio.map $(PKG_LIBS)
$(FIO_ENGINE): $(FIO_ENGINE_OBJS) $(LIB_A) fio/libxprt-fio.map
	@mkdir -p $(@D)
	$(call FIO_ENGINE_LINK,$(O)/obj/fio/engine.o)

fio-engine: $(FIO_ENGINE)

# the integration tests run real fio with it
integration: $(FIO_ENGINE)

.PHONY: fio-engine

# make install-fio: the engine at the fixed path its man page names
# (PREFIX/lib/libxprt/fio: fio is told the path, it searches no folder),
# the page, and the example job files
FIO_ENGINE_DIR ?= $(PREFIX)/lib/libxprt/fio
FIO_EXAMPLE_DIR ?= $(PREFIX)/share/libxprt/fio
install-fio: $(FIO_ENGINE)
	install -d $(DESTDIR)$(FIO_ENGINE_DIR) $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(FIO_EXAMPLE_DIR)
	install -m 0644 $(FIO_ENGINE) $(DESTDIR)$(FIO_ENGINE_DIR)/
	install -m 0644 docs/man/libxprt-fio.7 $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 fio/examples/*.fio $(DESTDIR)$(FIO_EXAMPLE_DIR)/

.PHONY: install-fio

# the engine's page renders without a groff warning, at this version
check-man: check-man-fio
check-man-fio:
	@out=$$(LC_ALL=C.UTF-8 MANWIDTH=80 groff -man -Tutf8 -ww -z \
	    docs/man/libxprt-fio.7 2>&1); \
	if [ -n "$$out" ]; then echo "docs/man/libxprt-fio.7: $$out"; exit 1; fi; \
	grep -q '"libxprt $(VERSION)"' docs/man/libxprt-fio.7 || \
	    { echo "docs/man/libxprt-fio.7: not the version $(VERSION)"; exit 1; }

.PHONY: check-man-fio
