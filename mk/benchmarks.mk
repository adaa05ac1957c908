# mk/benchmarks.mk: benchmarks against peers: demo, bench-rpc, bench-nfs3,
# bench-fair, bench-fio, per-call cost.
# Included by the top-level Makefile, in its order.

# ================================================== demo and peer benchmarks
# (owned by nfs3-bench: scripts/bench-*.sh, tests/integration/test_nfs3_bench*)
# demo: from a fresh Debian 12 machine (as root) to an nfs3-bench result:
# packages, build, ganesha on loopback, two short runs, server stopped.
# bench-rpc / bench-nfs3: our client and the peers (libtirpc, libnfs) in
# alternating rounds against ganesha; QUICK=1 for a short version.  Each
# writes $(O)/bench-<name>.{json,md,tsv}.  The deps step is a sub-make
# target of its own: pkg-config must exist before this Makefile is read
# again for the build.
.PHONY: bench-rpc bench-nfs3 bench-peers demo-build

bench-peers:
	$(MAKE) -s -C perf/peers O=$(O)/bench/peers

demo-build:
	$(MAKE) $(O)/bench/nfs3-bench

demo:
	@scripts/deps.sh build servers
	@echo "demo: building nfs3-bench ($(O))"
	@$(MAKE) --no-print-directory -s demo-build
	@scripts/bench-demo.sh $(O)

bench-rpc:
	@scripts/deps.sh build servers
	@$(MAKE) --no-print-directory -s examples bench-peers
	scripts/bench-rpc.sh $(O)

bench-nfs3:
	@scripts/deps.sh build servers
	@$(MAKE) --no-print-directory -s $(O)/bench/nfs3-bench bench-peers
	scripts/bench-nfs3.sh $(O)

# bench-fair: the fair transmit queue against FIFO: its own cost under
# callgrind (scripts/fairq-cost.py) and nfs3-bench --xmit-order fair/fifo
# against ganesha; writes $(O)/bench-fair.json.  QUICK=1: shorter.
.PHONY: bench-fair
bench-fair:
	@scripts/deps.sh build servers cost
	@$(MAKE) --no-print-directory -s $(O)/bench/nfs3-bench \
	    $(O)/bench/micro/mb_fairq
	scripts/bench-fair.py $(O)

# bench-fio: fio with libxprt's engine beside nfs3-bench on the same job
# and beside fio's own libnfs engine (fio built from the engine's fio
# source into $(O)/bench/fio-libnfs), against ganesha; writes
# $(O)/bench-fio.json.  QUICK=1: shorter.
.PHONY: bench-fio
bench-fio:
	@scripts/deps.sh build servers
	@$(MAKE) --no-print-directory -s fio-engine $(O)/bench/nfs3-bench
	scripts/bench-fio.sh $(O)

# test_nfs3_bench.sh runs the nfs3-bench of the build being tested
integration: $(O)/bench/nfs3-bench
# ============================================== end demo and peer benchmarks

# ================================================================ cost
# (owned by the per-call cost gauge: perf/cost/, scripts/bench-cost.py)
# perf/cost/*.c are small programs on the public API, one per workload
# of `make bench-cost`: each perf/cost/NAME.c becomes
# $(O)/bench/cost/NAME with underscores as dashes.  They are compiled
# against include/libxprt/ only and linked against libxprt.so, as a user
# links with pkg-config (found through an $ORIGIN rpath, in place).
# `make bench-cost` counts their client instructions (callgrind) and
# system calls (strace) per operation beside nfs3-bench, p9-bench,
# mem-bench and the peers, against the same servers: a table and
# $(O)/bench-cost.json; about 10 minutes with the RDMA guest.
COST_SRCS := $(sort $(wildcard perf/cost/*.c))
COST_BINS := $(foreach s,$(COST_SRCS),\
               $(O)/bench/cost/$(subst _,-,$(notdir $(s:.c=))))
COST_CFLAGS = $(CSTD) $(WARN) $(OPT) -pthread -Iinclude $(PKG_CFLAGS) \
              $(CPPFLAGS) $(CFLAGS)

.PHONY: cost-tools bench-cost

# one pattern per binary: make cannot map dashes back to underscores
define COST_RULE
$(O)/bench/cost/$(subst _,-,$(notdir $(1:.c=))): $(1) $(O)/libxprt.so \
		$(PUB_HDRS) perf/cost/cost_util.h
	@mkdir -p $$(@D)
	$$(CC) $$(COST_CFLAGS) -o $$@ $$< -L$(O) -lxprt \
	    -Wl,-rpath,'$$$$ORIGIN/../..' $$(LDFLAGS_ALL)
endef
$(foreach s,$(COST_SRCS),$(eval $(call COST_RULE,$(s))))

cost-tools: $(COST_BINS)

all: cost-tools

# The regression guard, in make check, plain build only
# (valgrind does not run sanitizer builds): client instructions per call
# of the synchronous NULL and of 16-deep 4 KiB READs against the fake
# in-process server of tests/unit (tests/cost/cost_guard.c; its threads
# not counted), against tests/cost/baseline.txt: fails when either grows
# more than 20 % past it.  Lower the baseline as the fast path improves.
COST_GUARD := build/plain/tests/cost/cost-guard

.PHONY: check-cost

$(O)/tests/cost/cost-guard: tests/cost/cost_guard.c $(LIB_A) \
		$(UNIT_HELPER_OBJS) tests/unit/test_nfs3_fakesrv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(UNIT_HELPER_OBJS) $(LIB_A) \
	    $(LDFLAGS_ALL) $(PKG_LIBS) $(CMOCKA_LIBS)

check-cost:
	@scripts/deps.sh --check cost >/dev/null 2>&1 || scripts/deps.sh cost
	@$(MAKE) --no-print-directory -s BUILD=plain $(COST_GUARD)
	@scripts/bench-cost.py --self-test
	scripts/bench-cost.py --guard build/plain

bench-cost:
	@scripts/deps.sh build servers cost
	@$(MAKE) --no-print-directory -s all bench-peers rdma-tools
	scripts/bench-cost.py $(O)
# ============================================================ end cost
