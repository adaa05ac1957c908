# mk/tests.mk: tests: unit, hostile, integration, the check target, soak, fuzzing.
# Included by the top-level Makefile, in its order.

# ---------------------------------------------------------------- tests
# Unit tests, and hostile-server tests (scripted servers the tests start
# themselves: they need no real server, so they run with the unit tests).
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
HOSTILE_SRCS := $(sort $(wildcard tests/hostile/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/unit/%) \
             $(HOSTILE_SRCS:tests/hostile/%.c=$(O)/tests/hostile/%)
# the scripted servers' own self-tests (Python: run with the plain build's
# unit tests only, the same in every build)
HOSTILE_SELFTESTS := $(sort $(wildcard tests/hostile/selftest_*.py))
UNIT_HELPER_SRCS := $(sort $(wildcard tests/unit/helpers/*.c))
UNIT_HELPER_OBJS := $(UNIT_HELPER_SRCS:%.c=$(O)/obj/%.o)
INTEG_SRCS := $(sort $(wildcard tests/integration/test_*.c))
INTEG_BINS := $(INTEG_SRCS:tests/integration/%.c=$(O)/tests/integration/%)
INTEG_SCRIPTS := $(sort $(wildcard tests/integration/test_*.sh \
                                   tests/integration/test_*.py))


# Unit tests link the static library so internal symbols are reachable.
$(O)/tests/unit/%: tests/unit/%.c $(LIB_A) $(UNIT_HELPER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(UNIT_HELPER_OBJS) $(LIB_A) \
	    $(LDFLAGS_ALL) $(PKG_LIBS) $(CMOCKA_LIBS)

$(O)/tests/hostile/%: tests/hostile/%.c $(LIB_A) $(UNIT_HELPER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(UNIT_HELPER_OBJS) $(LIB_A) \
	    $(LDFLAGS_ALL) $(PKG_LIBS) $(CMOCKA_LIBS)

# the shared library, loaded with dlopen() (its initial-exec TLS)
$(O)/tests/unit/test_dlopen: $(LIB_SO)
$(O)/tests/unit/test_dlopen: CFLAGS_ALL += \
    -DLX_TEST_SO='"$(CURDIR)/$(LIB_SO)"'

# the VERSION file the library's version must be
$(O)/tests/unit/test_version: CFLAGS_ALL += \
    -DLX_TEST_VERSION_FILE='"$(CURDIR)/VERSION"'

unit: $(UNIT_BINS)
	@scripts/run-unit.sh $(O) $(UNIT_BINS) \
	    $(if $(filter plain,$(BUILD)),$(HOSTILE_SELFTESTS))

# Integration tests: same build rules, run against real servers.
$(O)/tests/integration/%: tests/integration/%.c $(LIB_A) $(UNIT_HELPER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Itests/unit -Itests/integration -o $@ $< \
	    $(UNIT_HELPER_OBJS) $(LIB_A) $(LDFLAGS_ALL) $(PKG_LIBS) \
	    $(CMOCKA_LIBS)

# libnfs and libxprt in one program (test_libnfs_side.sh): linked with
# libxprt.so before libnfs, libnfs before libxprt.so, and with libxprt.a.
# Two translation units: libnfs's and libtirpc's headers both define
# bool_t.  rpath: run from the build tree, never an installed libxprt.
NFS_CFLAGS := $(shell pkg-config --cflags libnfs 2>/dev/null)
NFS_LIBS   := $(shell pkg-config --libs libnfs 2>/dev/null || echo -lnfs)
SIDE_OBJS  := $(O)/obj/tests/integration/side_main.o \
              $(O)/obj/tests/integration/side_libnfs.o \
              $(O)/obj/tests/integration/side_libxprt.o
SIDE_BINS  := $(O)/tests/integration/side-xprt-nfs \
              $(O)/tests/integration/side-nfs-xprt \
              $(O)/tests/integration/side-static
$(O)/obj/tests/integration/side_libnfs.o: CFLAGS_ALL += $(NFS_CFLAGS)
SIDE_RPATH = -L$(O) -Wl,-rpath,$(abspath $(O))
$(O)/tests/integration/side-xprt-nfs: $(SIDE_OBJS) $(O)/libxprt.so
	@mkdir -p $(@D)
	$(CC) -o $@ $(SIDE_OBJS) $(LDFLAGS_ALL) $(SIDE_RPATH) -lxprt $(NFS_LIBS)
$(O)/tests/integration/side-nfs-xprt: $(SIDE_OBJS) $(O)/libxprt.so
	@mkdir -p $(@D)
	$(CC) -o $@ $(SIDE_OBJS) $(LDFLAGS_ALL) $(NFS_LIBS) $(SIDE_RPATH) -lxprt
$(O)/tests/integration/side-static: $(SIDE_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) -o $@ $(SIDE_OBJS) $(LIB_A) $(LDFLAGS_ALL) $(PKG_LIBS) $(NFS_LIBS)

integration: $(INTEG_BINS) $(SIDE_BINS) tools
	@scripts/run-integration.sh $(O) $(INTEG_BINS) $(INTEG_SCRIPTS)

asan:
	$(MAKE) BUILD=asan unit

tsan:
	$(MAKE) BUILD=tsan unit

check-unit: deps-check
	$(MAKE) unit
	$(MAKE) BUILD=asan unit
	$(MAKE) BUILD=tsan unit

check-integration: deps-check
	@scripts/deps.sh --check servers >/dev/null 2>&1 || scripts/deps.sh servers
	$(MAKE) integration
	$(MAKE) BUILD=asan integration
	$(MAKE) BUILD=tsan integration

# (74-shared-pool-rdma runs the host-built examples/shared_read)
check-rdma: $(O)/examples/shared_read
	tests/rdma/check-rdma.sh

# The README's test command: everything, on a fresh Debian 12 machine.
# The fuzz targets run FUZZ_SECONDS (60) each and the fault soak
# SOAK_SECONDS (60): short runs of what `make fuzz-long` / longer soaks do.
# Everything it needs is installed first (DEPS_ALL), and the steps run in
# a new make that reads this Makefile after the install: what pkg-config
# finds when make reads it (the libraries' flags, Open MPI for the
# benches' MPI mode) is then what is installed, on a fresh machine too.
CHECK_STEPS := check-format check-version check-man check-docs \
       check-cycles check-deps-order check-unit check-cost check-install \
       check-deb check-integration check-mpi check-plot check-rdma fuzz soak
check: deps-check-all
	@$(MAKE) --no-print-directory $(CHECK_STEPS)

DEPS_ALL = scripts/deps.sh --check all >/dev/null 2>&1 || scripts/deps.sh all
deps-check-all:
	@$(DEPS_ALL)

# That order, and a make that read this Makefile before Open MPI was
# installed: after each, bench-mpi.cfg says MPI=openmpi exactly when the
# benches link libmpi (tests/make/test_deps_order.sh: a pkg-config that
# shows Open MPI only once it is "installed"; a few links in a scratch
# copy of the build tree, seconds).
.PHONY: check-deps-order
check-deps-order: deps-check
	@scripts/deps.sh --check mpi >/dev/null 2>&1 || scripts/deps.sh mpi
	tests/make/test_deps_order.sh $(O)


# ================================================================ soak
# (owned by tests/soak: fault soak under ganesha kills, scripts/run-soak.sh)
SOAK_BIN := $(O)/tests/soak/nfs3-soak
SOAK_SECONDS ?= 60

.PHONY: soak

$(SOAK_BIN): tests/soak/nfs3_soak.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -MF $@.d -o $@ $< $(LIB_A) $(LDFLAGS_ALL) \
	    $(PKG_LIBS)

# the wire test uses it as a workload when it is built
integration: $(SOAK_BIN)

# (built by a new make: one that reads this Makefile after deps-check)
soak: deps-check
	@scripts/deps.sh --check servers >/dev/null 2>&1 || scripts/deps.sh servers
	@$(MAKE) --no-print-directory -s $(SOAK_BIN)
	@scripts/run-soak.sh $(O) $(SOAK_SECONDS)

-include $(SOAK_BIN).d
# ============================================================ end soak

# ================================================================ fuzzing
# (owned by tests/fuzz: libFuzzer targets, clang, ASan + UBSan)
# Every tests/fuzz/fuzz_<name>.c is a target build/fuzz/fuzz_<name>,
# linked with tests/fuzz/harness.c and the library built again with
# coverage instrumentation - minus xprt/tcp/tcp.c, whose transport ops the
# harness replaces (see tests/fuzz/harness.h).  `make fuzz` runs each for
# FUZZ_SECONDS (60) on a copy of its seed corpus tests/fuzz/corpus/<name>
# after replaying tests/fuzz/crashes-fixed/<name>/ (regressions);
# `make fuzz-long` runs each for FUZZ_LONG_SECONDS (1800) and keeps the
# grown corpus in build/fuzz/corpus.
FUZZ_O      := build/fuzz
FUZZ_CC     ?= clang
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := $(CSTD) $(WARN) -O1 -g -fno-omit-frame-pointer \
               -fsanitize=fuzzer-no-link $(FUZZ_SAN) -pthread -Iinclude -I. \
               -Itests/fuzz $(PKG_CFLAGS)
FUZZ_LIB_SRCS := $(filter-out xprt/tcp/tcp.c,$(LIB_SRCS))
FUZZ_LIB_OBJS := $(FUZZ_LIB_SRCS:%.c=$(FUZZ_O)/obj/%.o) \
                 $(FUZZ_O)/obj/tests/fuzz/harness.o
FUZZ_SRCS   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS   := $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ_O)/%)
FUZZ_SECONDS ?= 60
FUZZ_LONG_SECONDS ?= 1800

.PHONY: fuzz fuzz-build fuzz-long

$(FUZZ_O)/obj/xprt/core/version.o: FUZZ_CFLAGS += $(VERSION_DEF)

$(FUZZ_O)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< \
	    $(FUZZ_LIB_OBJS) -pthread $(PKG_LIBS)

fuzz-build:
	@scripts/deps.sh --check fuzz >/dev/null 2>&1 || scripts/deps.sh fuzz
	$(MAKE) $(FUZZ_BINS)

fuzz: fuzz-build
	@scripts/run-fuzz.sh $(FUZZ_O) $(FUZZ_SECONDS) $(FUZZ_BINS)

fuzz-long: fuzz-build
	@FUZZ_KEEP_CORPUS=1 scripts/run-fuzz.sh $(FUZZ_O) $(FUZZ_LONG_SECONDS) \
	    $(FUZZ_BINS)

-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_BINS:=.d)
# ============================================================ end fuzzing
