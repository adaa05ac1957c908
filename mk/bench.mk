# mk/bench.mk: benches and tools: micro benchmarks, examples, the bench engine, nfs3-bench, p9-bench.
# Included by the top-level Makefile, in its order.

# ---------------------------------------------------------------- benches
# (the micro benchmarks are sources in perf/micro; their programs stay in
# $(O)/bench/micro, where scripts/run-bench-micro.sh runs them)
MICRO_SRCS := $(sort $(wildcard perf/micro/mb_*.c))
MICRO_COMMON := $(filter-out $(MICRO_SRCS),$(sort $(wildcard perf/micro/*.c)))
MICRO_BINS := $(MICRO_SRCS:perf/micro/%.c=$(O)/bench/micro/%)
MICRO_COMMON_OBJS := $(MICRO_COMMON:%.c=$(O)/obj/%.o)


# ---------------------------------------------------------------- benches
$(O)/bench/micro/%: perf/micro/%.c $(MICRO_COMMON_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Iperf/micro -o $@ $< $(MICRO_COMMON_OBJS) \
	    $(LIB_A) $(LDFLAGS_ALL) $(PKG_LIBS) -lm

# (built by a new make: one that reads this Makefile after deps-check)
bench-micro: deps-check
	@$(MAKE) --no-print-directory -s $(MICRO_BINS)
	@scripts/run-bench-micro.sh $(O) $(MICRO_BINS)

# ---------------------------------------------------------------- examples
# Examples are tools built the way a user builds theirs: against the
# library through pkg-config.  `make examples` uses this build tree;
# check-install uses a temporary installation.
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLE_BINS := $(EXAMPLE_SRCS:examples/%.c=$(O)/examples/%)

# How the programs `make install` installs (examples, nfs3-bench,
# p9-bench) link libxprt:
#   TOOLS_LINK=static (default)  libxprt.a: the build tree's programs run
#                                in place, no library path to set
#   TOOLS_LINK=shared            libxprt.so.1, found by the loader: the
#                                Debian package's way (libxprt-tools
#                                depends on libxprt1 instead of carrying
#                                a copy); only what they call directly is
#                                linked (--as-needed)
# The choice is recorded with the MPI one (BENCH_CONFIG): changing it
# relinks them.
TOOLS_LINK ?= static
ifeq ($(TOOLS_LINK),shared)
TOOL_DEP  := $(O)/libxprt.so
TOOL_LIBS := -Wl,--as-needed -L$(O) -lxprt
else ifeq ($(TOOLS_LINK),static)
TOOL_DEP  := $(LIB_A)
TOOL_LIBS := $(LIB_A)
else
$(error TOOLS_LINK=$(TOOLS_LINK): static or shared)
endif

$(O)/examples/%: examples/%.c $(TOOL_DEP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(TOOL_LIBS) $(LDFLAGS_ALL) $(PKG_LIBS)

# loop_uv runs the library from a libuv loop (libuv1-dev, deps.sh build)
UV_CFLAGS := $(shell pkg-config --cflags libuv 2>/dev/null)
UV_LIBS   := $(shell pkg-config --libs libuv 2>/dev/null || echo -luv)
$(O)/examples/loop_uv: CFLAGS_ALL += $(UV_CFLAGS)
$(O)/examples/loop_uv: PKG_LIBS += $(UV_LIBS)

examples: $(EXAMPLE_BINS)

tools: examples

# Install into a temporary PREFIX, build and run every example against it
# through pkg-config, uninstall, check nothing is left; then again with
# DESTDIR staging (scripts/check-install.sh).
check-install: lib tools
	MAKE="$(MAKE)" CC="$(CC)" BUILD=$(BUILD) scripts/check-install.sh $(O)
	@scripts/api-index.py --check
	scripts/api-index.py --check

# ================================================================ p9-bench
# (owned by p9-bench: bench/backends/p9/, 
# scripts/bench-p9.py, tests/integration/test_p9_bench.sh,
# tests/integration/test_p9_reconnect.sh)
# bench-p9: p9-bench against diod and ganesha beside the peers (peer_p9,
# diod's diodload) in alternating rounds, medians; the 9P slab thread's
# 32-byte experiment (--alloc pool vs malloc).  About 4 minutes, QUICK=1
# under one.  Writes $(O)/bench-p9.{md,tsv,json}.
.PHONY: bench-p9

# p9-bench is three files: its sessions (p9_sess.c) and I/O path
# (p9_io.c) link beside the main through the engine's rule
# (BENCH_OBJS_<proto>).
BENCH_OBJS_p9 := $(O)/obj/bench/backends/p9/p9_sess.o \
                 $(O)/obj/bench/backends/p9/p9_io.o
$(O)/bench/p9-bench: $(BENCH_OBJS_p9)
-include $(BENCH_OBJS_p9:.o=.d)

bench-p9: deps-check
	@scripts/deps.sh --check servers >/dev/null 2>&1 || \
	    scripts/deps.sh servers
	@$(MAKE) --no-print-directory -s $(O)/bench/p9-bench
	@$(MAKE) --no-print-directory -s -C perf/peers O=$(CURDIR)/$(O)/bench/peers
	scripts/bench-p9.py $(O)

# test_p9_bench.sh runs the p9-bench of the build being tested, and so
# does the soak (its verify workload under diod kills)
integration: $(O)/bench/p9-bench
soak: $(O)/bench/p9-bench
# ============================================================ end p9-bench

# ================================================================ bench engine
# (owned by the bench engine: bench/engine/, bench/backends/, docs/man/)
# One engine, one back-end per protocol: every
# bench/backends/<proto>/<proto>_bench.c main
# becomes $(O)/bench/<proto>-bench (nfs3-bench, p9-bench, mem-bench), linked
# with the engine archive and libxprt.a.  Unit tests named test_bench_*
# link the engine as well (a more specific pattern than the unit rule).
# The MPI glue is not part of the engine archive: the benches link it,
# with Open MPI, when MPI support is built (see MPI below).
BENCH_MPI_SRC     := bench/engine/mpi.c
# the in-memory back-end is in the archive: the engine's unit tests use it
BENCH_ENGINE_SRCS := $(filter-out $(BENCH_MPI_SRC),\
                       $(sort $(wildcard bench/engine/*.c))) \
                     bench/backends/mem/mem_backend.c
BENCH_ENGINE_OBJS := $(BENCH_ENGINE_SRCS:%.c=$(O)/obj/%.o)
BENCH_ENGINE_A    := $(O)/libbench.a
BENCH_MAINS       := $(sort $(wildcard bench/backends/*/*_bench.c))
BENCH_BINS        := $(patsubst %_bench.c,$(O)/bench/%-bench,\
                       $(notdir $(BENCH_MAINS)))
# bench/ includes its headers from its root ("engine/engine.h")
$(O)/obj/bench/%.o: CFLAGS_ALL += -Ibench
# mem-bench is a development tool: built, not installed
BENCH_INSTALL     := $(filter-out %/mem-bench,$(BENCH_BINS))
BENCH_MANS        := $(sort $(wildcard docs/man/*.1))

.PHONY: bench install-tools uninstall-tools check-man check-mpi check-plot

# MPI mode of the benches (docs/benchmarks.md, "Multi-node runs"):
#   MPI=auto (default)  built when pkg-config finds Open MPI (ompi-c, from
#                       Debian's libopenmpi-dev: scripts/deps.sh mpi),
#                       except in the TSan build: Open MPI's own threads
#                       (libevent, its TCP transport) are not instrumented
#                       and trip ThreadSanitizer
#   MPI=1               required (error without Open MPI)
#   MPI=0               never: the benches do not link MPI at all
# Without it nothing else changes: bench/engine/mpi.c is the only file
# that calls MPI, and the engine reaches it through a weak symbol.
MPI ?= auto
ifeq ($(MPI)$(BUILD),autotsan)
HAVE_MPI :=
else ifeq ($(MPI),0)
HAVE_MPI :=
else
HAVE_MPI := $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1)
ifeq ($(MPI)$(HAVE_MPI),1)
$(error MPI=1 but pkg-config finds no Open MPI (ompi-c): run scripts/deps.sh mpi)
endif
endif
ifeq ($(HAVE_MPI),1)
BENCH_MPI_OBJ := $(BENCH_MPI_SRC:%.c=$(O)/obj/%.o)
MPI_LIBS      := $(shell pkg-config --libs ompi-c)
$(BENCH_MPI_OBJ): CFLAGS_ALL += $(shell pkg-config --cflags ompi-c)
endif

# The benches are relinked when the MPI choice changes: the choice is
# written to a file when make reads this (before it compares any times),
# and only when it differs from what the file says.  A bench's link
# writes it again: a make that read this before Open MPI was installed
# (or removed) can link after another make, which read it after, changed
# the file.  The file then says what the last link used, and the next
# make that decides otherwise relinks (tests/make/test_deps_order.sh).
BENCH_CONFIG := $(O)/bench-mpi.cfg
BENCH_CFG_LINE := MPI=$(if $(HAVE_MPI),openmpi,none) LINK=$(TOOLS_LINK)
BENCH_CFG_WRITE = echo '$(BENCH_CFG_LINE)' | cmp -s - $(BENCH_CONFIG) || \
    echo '$(BENCH_CFG_LINE)' > $(BENCH_CONFIG)
ifneq ($(filter-out clean help print-%,$(or $(MAKECMDGOALS),all)),)
$(shell mkdir -p $(O) && { $(BENCH_CFG_WRITE); })
endif

$(BENCH_ENGINE_A): $(BENCH_ENGINE_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# A bench of several files names its other objects in BENCH_OBJS_<proto>
# (and lists them as prerequisites of its binary): they link after the main.
# (second expansion: the main of PROTO-bench is bench/backends/PROTO/)
.SECONDEXPANSION:
$(O)/bench/%-bench: bench/backends/$$*/$$*_bench.c $(BENCH_MPI_OBJ) $(BENCH_ENGINE_A) \
		$(TOOL_DEP) $(BENCH_CONFIG)
	@mkdir -p $(@D)
	@$(BENCH_CFG_WRITE)
	$(CC) $(CFLAGS_ALL) -Ibench -o $@ $< $(BENCH_OBJS_$*) $(BENCH_MPI_OBJ) \
	    $(BENCH_ENGINE_A) $(TOOL_LIBS) $(LDFLAGS_ALL) $(PKG_LIBS) \
	    $(MPI_LIBS) -lm
$(EXAMPLE_BINS): $(BENCH_CONFIG)

$(O)/tests/unit/test_bench_%: tests/unit/test_bench_%.c $(BENCH_ENGINE_A) \
		$(LIB_A) $(UNIT_HELPER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Itests/unit -Ibench -o $@ $< $(UNIT_HELPER_OBJS) \
	    $(BENCH_ENGINE_A) $(LIB_A) $(LDFLAGS_ALL) $(PKG_LIBS) \
	    $(CMOCKA_LIBS) -lm

bench: $(BENCH_BINS)

# test_bench_report.sh compares mem-bench's text report with fio's
integration: $(O)/bench/mem-bench

all: bench

# What `make install` puts in BINDIR: the benches (not mem-bench, nor
# the perf/cost programs: instruments of make bench-cost), the examples
# that are tools (not shared_read, loop_epoll and loop_uv: code to read,
# run by tests/integration/test_shared_read.sh, test_loop_epoll.sh and
# test_loop_uv.sh) and xprt-plot; each with its man page docs/man/NAME.1.
EXAMPLE_TEACH   := $(O)/examples/shared_read $(O)/examples/loop_epoll \
                   $(O)/examples/loop_uv
INSTALL_BINS    := $(BENCH_INSTALL) $(filter-out $(EXAMPLE_TEACH),$(EXAMPLE_BINS))
INSTALL_SCRIPTS := scripts/xprt-plot
INSTALL_MANS1   := $(foreach p,$(INSTALL_BINS) $(INSTALL_SCRIPTS),\
                     docs/man/$(notdir $(p)).1)

# `make tools`: what `make install` installs (the package build's target)
tools: $(INSTALL_BINS)

# The man pages must be up to date with their sources and render without a
# groff warning, and every installed program must have one.
check-man:
	@docs/man/mkman.sh --check $(VERSION)
	@for m in $(INSTALL_MANS1); do [ -e $$m ] || \
		{ echo "$${m%.1}: installed without a man page ($$m)"; exit 1; }; \
	done
	@for m in $(BENCH_MANS) $(wildcard docs/man/*.3); do \
		out=$$(LC_ALL=C.UTF-8 MANWIDTH=80 groff -man -Tutf8 -ww -z $$m 2>&1); \
		if [ -n "$$out" ]; then echo "$$m: $$out"; exit 1; fi; \
		grep -q '"libxprt $(VERSION)"' $$m || \
		    { echo "$$m: not the version $(VERSION)"; exit 1; }; \
	done; echo "man pages ok: $(BENCH_MANS) $(wildcard docs/man/*.3)"

install: install-tools

install-tools: $(INSTALL_BINS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(INSTALL_BINS) $(INSTALL_SCRIPTS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(INSTALL_MANS1) $(DESTDIR)$(MANDIR)/man1/

uninstall: uninstall-tools

uninstall-tools:
	rm -f $(foreach p,$(INSTALL_BINS) $(INSTALL_SCRIPTS),\
	    $(DESTDIR)$(BINDIR)/$(notdir $(p))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INSTALL_MANS1)))


# Multi-node mode: on localhost, mpirun -np 4 mem-bench, the merged report
# checked against the ranks' own numbers; then over two "nodes" (network
# and UTS namespaces joined by veth links, ranks as nobody, TCP only),
# nfs3-bench against ganesha and p9-bench against diod, rank 0's report
# against the sum of the ranks (tests/bench/test_mpi_netns.sh: needs root,
# skipped without, which scripts/skips.sh allows only where not root).
# Installs what it builds with, Open MPI and the servers when missing
# (`make check-mpi` alone on a new machine, too).
check-mpi:
	@scripts/deps.sh --check build mpi servers >/dev/null 2>&1 || \
	    scripts/deps.sh build mpi servers
	$(MAKE) MPI=1 $(O)/bench/mem-bench $(O)/bench/nfs3-bench \
	    $(O)/bench/p9-bench
	tests/bench/test_mpi_mem.sh $(O)
	scripts/skips.sh run tests/bench/test_mpi_netns.sh $(O)

# Logs, histogram dumps and plots from a mem-bench run, checked to be
# valid SVG and PNG files.
check-plot:
	@scripts/deps.sh --check build mpi >/dev/null 2>&1 || \
	    scripts/deps.sh build mpi
	$(MAKE) $(O)/bench/mem-bench
	tests/bench/test_plot.sh $(O)

-include $(BENCH_ENGINE_OBJS:.o=.d) $(BENCH_MPI_OBJ:.o=.d)
# ============================================================ end bench engine
