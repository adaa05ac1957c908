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

$(FIO_SOURCE): scripts/fio-source.sh $(O)/fio/fio-version-$(FIO_VERSION_NOW)
	@mkdir -p $(@D)
	scripts/fio-source.sh $(FIO_CACHE) | tail -1 >$@.tmp && mv $@.tmp $@

$(O)/fio/fio-version-$(FIO_VERSION_NOW):
	@mkdir -p $(@D)
	rm -f $(O)/fio/fio-version-* && touch $@

# engine.c includes fio's headers: their flags (fio's Makefile: large
# files, BITS_PER_LONG, config-host.h first), GNU C as fio is written, and
# fio's tree as a system directory so its headers' warnings stay its own
$(O)/obj/fio/engine.o: $(FIO_SOURCE)
$(O)/obj/fio/engine.o: CFLAGS_ALL := $(filter-out -std=c11,$(CFLAGS_ALL)) \
    -std=gnu11 -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 \
    -DBITS_PER_LONG=64 -DFIO_INTERNAL -DFIO_EXTERNAL_ENGINE \
    -isystem $$(cat $(FIO_SOURCE)) -include $$(cat $(FIO_SOURCE))/config-host.h

$(FIO_ENGINE): $(FIO_ENGINE_OBJS) $(LIB_A) fio/libxprt-fio.map
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(FIO_ENGINE_OBJS) $(LIB_A) $(LDFLAGS_ALL) \
	    -Wl,--version-script=fio/libxprt-fio.map $(PKG_LIBS)

fio-engine: $(FIO_ENGINE)

# the integration tests run real fio with it
integration: $(FIO_ENGINE)

.PHONY: fio-engine
