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

# The version is written in one place, the VERSION file: the library
# returns it (lx_xprt_version(), xprt/core/version.c), the .pc, the man pages
# and the benches' --version say it, and debian/changelog's newest entry
# must carry it (make check-version).  SOVERSION changes with the ABI only.
VERSION    := $(shell cat VERSION 2>/dev/null)
ifeq ($(VERSION),)
$(error no VERSION file at the top of the tree)
endif
SOVERSION  := 1
PREFIX     ?= /usr/local
# Multiarch library directory (lib/x86_64-linux-gnu...) wherever the
# toolchain has one: dpkg-buildpackage exports DEB_HOST_MULTIARCH,
# elsewhere dpkg-architecture or the compiler says it; where neither knows
# (a non-Debian system), plain lib.  Passed to sub-makes only when known:
# a make started before the compiler was installed (make check on a fresh
# machine) lets its sub-makes ask again.
ifeq ($(origin DEB_HOST_MULTIARCH),undefined)
DEB_HOST_MULTIARCH := $(or $(shell dpkg-architecture -qDEB_HOST_MULTIARCH \
                        2>/dev/null),$(shell $(or $(CC),cc) \
                        -print-multiarch 2>/dev/null))
ifneq ($(DEB_HOST_MULTIARCH),)
export DEB_HOST_MULTIARCH
endif
endif
LIBDIR     ?= $(PREFIX)/lib$(if $(DEB_HOST_MULTIARCH),/$(DEB_HOST_MULTIARCH))
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
OPT      := -O1 -g -fsanitize=thread -DLX_XPRT_TSAN=1
SANLD    := -fsanitize=thread
endif

# Thread-local variables through TLS descriptors (x86-64): in libxprt.so
# the default model calls __tls_get_addr on every access (~130
# instructions per call measured); a descriptor resolves to a
# two-instruction function for a library loaded at start, and still works
# for one loaded later with dlopen().  The few hottest bytes (pool.c,
# xmit.c, tags_map.c: 56 in all) are initial-exec instead, which a
# dlopen() serves from glibc's surplus of static TLS (tests/unit/test_dlopen).
TLS_DIALECT := $(if $(filter x86_64,$(shell uname -m)),-mtls-dialect=gnu2)
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) -pthread -fPIC -Iinclude -I. \
              $(TLS_DIALECT) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(SANLD) -pthread $(LDFLAGS)

# The rules, by concern (each file says what it holds).  The order
# matters: later files use variables the earlier ones set.
include mk/lib.mk
include mk/tests.mk
include mk/bench.mk
include mk/fio.mk
include mk/rdma.mk
include mk/benchmarks.mk
include mk/package.mk
include mk/checks.mk

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(UNIT_HELPER_OBJS:.o=.d) $(MICRO_COMMON_OBJS:.o=.d) \
	$(SIDE_OBJS:.o=.d) \
	$(FIO_ENGINE_OBJS:.o=.d)

