# mk/rdma.mk: the RDMA guest: host-built programs it runs, bench-rdma.
# Included by the top-level Makefile, in its order.

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
RDMA_TOOLS := rdma_null nfs3_rdma nfs3_lib_rdma p9relay p9_rdma p9_lib_rdma \
              rdma_mw
RDMA_TOOL_BINS := $(RDMA_TOOLS:%=$(RDMA_BIN)/%)

.PHONY: rdma-tools
rdma-tools: $(RDMA_TOOL_BINS)

$(RDMA_TOOL_BINS): $(RDMA_BIN)/%: tests/rdma/%.c $(LIB_A) \
		  $(wildcard tests/rdma/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB_A) $(LDFLAGS_ALL) $(PKG_LIBS)

# The floor of make bench-cost's RDMA rows, which guest test 22 runs
# (perf/peers builds it; rdma-core only).
rdma-tools: $(RDMA_BIN)/peers/peer_verbs
$(RDMA_BIN)/peers/peer_verbs: perf/peers/peer_verbs.c perf/peers/peer_common.c \
			      perf/peers/peer_common.h
	@$(MAKE) --no-print-directory -s -C perf/peers \
	    O=$(abspath $(RDMA_BIN))/peers $(abspath $(RDMA_BIN))/peers/peer_verbs

# The benches for the guest: linked without MPI whatever MPI says (the
# guest has no Open MPI; the engine reaches MPI through a weak symbol).
RDMA_BENCH_BINS := $(RDMA_BIN)/nfs3-bench $(RDMA_BIN)/p9-bench
rdma-tools: $(RDMA_BENCH_BINS)
$(RDMA_BIN)/p9-bench: $(BENCH_OBJS_p9)
$(RDMA_BENCH_BINS): $(RDMA_BIN)/%-bench: bench/backends/$$*/$$*_bench.c $(BENCH_ENGINE_A) \
		    $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Ibench -o $@ $< $(BENCH_OBJS_$*) \
	    $(BENCH_ENGINE_A) $(LIB_A) $(LDFLAGS_ALL) $(PKG_LIBS) -lm

# fio for the guest and libxprt's engine built for it (guest test
# 66-fio-rdma): fio from the cached fio source (scripts/fio-source.sh)
# configured without the engines whose libraries the guest lacks
# (tests/rdma/build-fio.sh), the engine compiled against that tree's
# headers, which give fio's structures the guest fio's layout.  fio is
# never instrumented (ASan finds fio's own faults at its exit): an ASan
# build's engine runs with the runtime preloaded (the guest test does).
RDMA_FIO_DIR    := $(RDMA_BIN)/fio
RDMA_FIO_ENGINE := $(RDMA_FIO_DIR)/libxprt-fio.so
rdma-tools: $(RDMA_FIO_DIR)/fio $(RDMA_FIO_ENGINE)
$(RDMA_FIO_DIR)/fio: tests/rdma/build-fio.sh $(FIO_SOURCE)
	+tests/rdma/build-fio.sh $$(cat $(FIO_SOURCE)) $(@D)
$(RDMA_FIO_DIR)/engine.o: fio/engine.c $(RDMA_FIO_DIR)/fio
	$(CC) $(call fio_engine_cflags,$(RDMA_FIO_DIR)/src) -MMD -MP -c \
	    -o $@ $<
$(RDMA_FIO_ENGINE): $(RDMA_FIO_DIR)/engine.o $(LIB_A) fio/libxprt-fio.map \
		    $(filter-out $(O)/obj/fio/engine.o,$(FIO_ENGINE_OBJS))
	$(call FIO_ENGINE_LINK,$(RDMA_FIO_DIR)/engine.o)
-include $(RDMA_FIO_DIR)/engine.d

# nfs3-bench against the kernel NFS client in the RDMA guest, over RDMA and
# TCP (tests/rdma/bench-rdma.sh; QUICK=1 for a short run).  Not part of
# make check.
.PHONY: bench-rdma bench-fio-rdma
bench-rdma:
	@tests/rdma/bench-rdma-report.py --self-test
	tests/rdma/bench-rdma.sh
# The same guest and points, four clients side by side: nfs3-bench, fio +
# libxprt's engine, fio libaio and fio psync on the kernel client's mount
# (tests/rdma/bench-rdma.sh --fio; QUICK=1 for a short run).
bench-fio-rdma:
	@tests/rdma/bench-rdma-report.py --self-test
	tests/rdma/bench-rdma.sh --fio
# ------------------------------------------------------ end of rdma tools
