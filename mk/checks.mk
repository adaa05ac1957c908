# mk/checks.mk: layering and style checks.
# Included by the top-level Makefile, in its order.

# ---------------------------------------------------------------- layering
# No two files of a library folder call into each other, nor any longer
# loop (scripts/check-cycles.py, over the objects' defined and undefined
# symbols): calls go one way, and back up only through the hooks a layer
# was handed.  bench/** is checked as one program: no two of its files
# (bench/engine, bench/backends/*, the programs' mains) call into each
# other, engine.c calls down and nothing calls back up into it (the map
# is in docs/architecture.md).  The same pass fails when a
# library object refers to stdio's printing: the library prints nothing
# itself, its messages go to the log hook of the client's options.
CYCLE_DIRS ?= xprt/** rpc nfs3 p9 url bench/**
# the mains are compiled into their programs; the check reads them as
# objects too
BENCH_MAIN_OBJS := $(BENCH_MAINS:%.c=$(O)/obj/%.o)
-include $(BENCH_MAIN_OBJS:.o=.d)

.PHONY: check-cycles
check-cycles: lib $(BENCH_ENGINE_OBJS) $(BENCH_MPI_OBJ) $(BENCH_OBJS_p9) \
		$(BENCH_MAIN_OBJS)
	scripts/check-cycles.py $(O)/obj --base xprt/blocks $(foreach d,$(CYCLE_DIRS),'$(d)')

# ---------------------------------------------------------------- style
FORMAT_SRCS = $(sort $(wildcard include/libxprt/*.h include/libxprt/proto/*.h xprt/*/*.[ch] rpc/*.[ch] \
              nfs3/*.[ch] p9/*.[ch] url/*.[ch] bench/*/*.[ch] bench/backends/*/*.[ch] \
              perf/*/*.[ch] tests/*/*.[ch] fio/*.[ch]))

format:
	@scripts/deps.sh --check format >/dev/null 2>&1 || scripts/deps.sh format
	clang-format -i $(FORMAT_SRCS)

check-format:
	@scripts/deps.sh --check format >/dev/null 2>&1 || scripts/deps.sh format
	clang-format --dry-run --Werror $(FORMAT_SRCS)

# ---------------------------------------------------------------- documents
# docs/benchmarks.md is what scripts/bench-md.py --write makes from
# docs/benchmarks.md.in and docs/results/*.json; and no document names a
# path of someone's machine, an issue number or a "wave": documents say
# what is true now, history lives in git.
DOC_PATH_RE := /wor[k]/|isolate\.sh|/home/[a-z]
DOC_LINT_RE := $(DOC_PATH_RE)|[Ii]ssue \#?[0-9]+|\b[Ww]ave [0-9]+
.PHONY: check-docs
check-docs:
	@scripts/bench-md.py --check
	@if grep -rnE '$(DOC_LINT_RE)' --include='*.md' --include='*.md.in' \
		--include='*.inc' --include='*.[1-8]' --include='*.[1-8].in' \
		README.md docs tests perf bench examples; then \
		echo "check-docs: the lines above name a machine's path," \
		     "an issue or a wave"; \
		exit 1; fi; echo "documents ok"
