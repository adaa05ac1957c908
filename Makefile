# libxprt: userspace RPC transport stack (SunRPC and 9P over TCP and RDMA).
#
# The two commands a newcomer needs:
#   make demo     install what is missing, start a local server, run a short
#                 benchmark and print its result
#   make check    every test: unit tests in the plain, ASan and TSan builds,
#                 integration tests against real servers, the RDMA guest
#
# Build variants go to separate trees: build/plain (default), build/asan,
# build/tsan.  `make BUILD=asan <target>` builds any target in a variant.

VERSION    := 0.1.0
SOVERSION  := 0
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR    ?=

BUILD ?= plain
O     := build/$(BUILD)
CC    ?= cc

PKG_LIB   := libtirpc liburcu-cds libibverbs librdmacm
PKG_CFLAGS := $(shell pkg-config --cflags $(PKG_LIB) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKG_LIB) 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wno-unused-parameter
CSTD     := -std=c11 -D_GNU_SOURCE
OPT      := -O2 -g
ifeq ($(BUILD),asan)
OPT      := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=undefined
SANLD    := -fsanitize=address,undefined
endif
ifeq ($(BUILD),tsan)
OPT      := -O1 -g -fsanitize=thread -DXPRT_TSAN=1
SANLD    := -fsanitize=thread
endif

CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) -pthread -fPIC -Iinclude -I. \
              $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(SANLD) -pthread $(LDFLAGS)

# ---------------------------------------------------------------- library
LIB_SRCS := $(sort $(wildcard xprt/*.c rpc/*.c nfs3/*.c p9/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/obj/%.o)
PUB_HDRS := $(sort $(wildcard include/libxprt/*.h))

LIB_A    := $(O)/libxprt.a
LIB_SO   := $(O)/libxprt.so.$(VERSION)
LIB_SONAME := libxprt.so.$(SOVERSION)

# ---------------------------------------------------------------- tests
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/unit/%)
UNIT_HELPER_SRCS := $(sort $(wildcard tests/unit/helpers/*.c))
UNIT_HELPER_OBJS := $(UNIT_HELPER_SRCS:%.c=$(O)/obj/%.o)

# ---------------------------------------------------------------- benches
MICRO_SRCS := $(sort $(wildcard bench/micro/mb_*.c))
MICRO_COMMON := $(filter-out $(MICRO_SRCS),$(sort $(wildcard bench/micro/*.c)))
MICRO_BINS := $(MICRO_SRCS:bench/micro/%.c=$(O)/bench/micro/%)
MICRO_COMMON_OBJS := $(MICRO_COMMON:%.c=$(O)/obj/%.o)

.SECONDARY:

.PHONY: all lib deps deps-check unit asan tsan check check-unit \
        check-format format demo bench-micro install uninstall clean help

all: lib

help:
	@sed -n '1,12p' Makefile

lib: $(LIB_A) $(O)/libxprt.so $(O)/libxprt.pc

deps:
	scripts/deps.sh build servers

# Install only what is missing (fast no-op when everything is there).
deps-check:
	@scripts/deps.sh --check build >/dev/null 2>&1 || scripts/deps.sh build

$(O)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) -o $@ $^ $(LDFLAGS_ALL) $(PKG_LIBS)

$(O)/libxprt.so: $(LIB_SO)
	ln -sf libxprt.so.$(VERSION) $(O)/$(LIB_SONAME)
	ln -sf libxprt.so.$(VERSION) $@

$(O)/libxprt.pc: libxprt.pc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@REQUIRES@|$(PKG_LIB)|' $< > $@

# Unit tests link the static library so internal symbols are reachable.
$(O)/tests/unit/%: tests/unit/%.c $(LIB_A) $(UNIT_HELPER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(UNIT_HELPER_OBJS) $(LIB_A) \
	    $(LDFLAGS_ALL) $(PKG_LIBS) $(CMOCKA_LIBS)

unit: $(UNIT_BINS)
	@scripts/run-unit.sh $(O) $(UNIT_BINS)

asan:
	$(MAKE) BUILD=asan unit

tsan:
	$(MAKE) BUILD=tsan unit

check-unit: deps-check
	$(MAKE) unit
	$(MAKE) BUILD=asan unit
	$(MAKE) BUILD=tsan unit

check: check-unit

# ---------------------------------------------------------------- benches
$(O)/bench/micro/%: bench/micro/%.c $(MICRO_COMMON_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Ibench/micro -o $@ $< $(MICRO_COMMON_OBJS) \
	    $(LIB_A) $(LDFLAGS_ALL) $(PKG_LIBS) -lm

bench-micro: deps-check $(MICRO_BINS)
	@scripts/run-bench-micro.sh $(O) $(MICRO_BINS)

demo: deps-check
	$(MAKE) bench-micro MB_QUICK=1

# ---------------------------------------------------------------- rdma tools
# (RDMA transport) host-built programs the RDMA test guest runs
# (tests/rdma/README.md): built against this BUILD's library into
# $(RDMA_BIN) (build/rdma, or build/rdma-asan...), which
# tests/rdma/check-rdma.sh passes to the guest.
ifeq ($(BUILD),plain)
RDMA_BIN   ?= build/rdma
else
RDMA_BIN   ?= build/rdma-$(BUILD)
endif
RDMA_TOOLS := rdma_null nfs3_rdma p9relay p9_rdma
RDMA_TOOL_BINS := $(RDMA_TOOLS:%=$(RDMA_BIN)/%)

.PHONY: rdma-tools
rdma-tools: $(RDMA_TOOL_BINS)

$(RDMA_TOOL_BINS): $(RDMA_BIN)/%: tests/rdma/%.c $(LIB_A) \
		  $(wildcard tests/rdma/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB_A) $(LDFLAGS_ALL) $(PKG_LIBS)
# ------------------------------------------------------ end of rdma tools

# ---------------------------------------------------------------- install
install: lib
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/libxprt \
	    $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libxprt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf libxprt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libxprt.so
	install -m 0644 $(PUB_HDRS) $(DESTDIR)$(INCLUDEDIR)/libxprt/
	install -m 0644 $(O)/libxprt.pc $(DESTDIR)$(PKGCONFIGDIR)/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libxprt.a $(DESTDIR)$(LIBDIR)/libxprt.so \
	    $(DESTDIR)$(LIBDIR)/$(LIB_SONAME) \
	    $(DESTDIR)$(LIBDIR)/libxprt.so.$(VERSION) \
	    $(DESTDIR)$(PKGCONFIGDIR)/libxprt.pc
	rm -rf $(DESTDIR)$(INCLUDEDIR)/libxprt

# ---------------------------------------------------------------- style
FORMAT_SRCS = $(sort $(wildcard include/libxprt/*.h xprt/*.[ch] rpc/*.[ch] \
              nfs3/*.[ch] p9/*.[ch] bench/*/*.[ch] tests/*/*.[ch]))

format:
	clang-format -i $(FORMAT_SRCS)

check-format:
	clang-format --dry-run --Werror $(FORMAT_SRCS)

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(UNIT_HELPER_OBJS:.o=.d) $(MICRO_COMMON_OBJS:.o=.d)
