# mk/lib.mk: the library: objects, libxprt.a, libxprt.so, libxprt.pc.
# Included by the top-level Makefile, in its order.

# ---------------------------------------------------------------- library
LIB_SRCS := $(sort $(wildcard xprt/*/*.c rpc/*.c nfs3/*.c p9/*.c url/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/obj/%.o)
PUB_HDRS := $(sort $(wildcard include/libxprt/*.h))
# the protocol-author tier, installed in include/libxprt/proto/
PROTO_HDRS := $(sort $(wildcard include/libxprt/proto/*.h))

LIB_A    := $(O)/libxprt.a
LIB_SO   := $(O)/libxprt.so.$(VERSION)
LIB_SONAME := libxprt.so.$(SOVERSION)


.SECONDARY:


.PHONY: deps-check-all

.PHONY: all lib tools deps deps-check unit integration asan tsan check \
        check-unit check-integration check-rdma check-install check-format \
        format demo examples bench-micro install uninstall clean help

all: lib tools

# Command-line tools (benches, examples) are added by later rules.
tools:

help:
	@sed -n '1,12p' Makefile

# `make -s print-LIBDIR PREFIX=/p`: a variable's value, for the scripts
# that must agree with the Makefile (check-install, check-deb)
print-%:
	@echo '$($*)'

lib: $(LIB_A) $(O)/libxprt.so $(O)/libxprt.pc

deps:
	scripts/deps.sh build servers cost deb

# Install only what is missing (fast no-op when everything is there).
deps-check:
	@scripts/deps.sh --check build >/dev/null 2>&1 || scripts/deps.sh build

$(O)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

# The one file that knows the version (VERSION_DEF: the fuzz build too)
VERSION_DEF := -DLX_XPRT_VERSION_STRING='"$(VERSION)"'
$(O)/obj/xprt/core/version.o: CFLAGS_ALL += $(VERSION_DEF)
$(O)/obj/xprt/core/version.o: VERSION

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# Only what include/libxprt/ declares is exported (libxprt.map, kept in
# step with the headers by scripts/abi-check.py in check-install): the
# functions the layers share with each other stay inside the library.
$(LIB_SO): $(LIB_OBJS) libxprt.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) \
	    -Wl,--version-script=libxprt.map -Wl,--no-undefined \
	    -Wl,-Bsymbolic-functions \
	    -o $@ $(LIB_OBJS) \
	    $(LDFLAGS_ALL) $(PKG_LIBS)

$(O)/libxprt.so: $(LIB_SO)
	ln -sf libxprt.so.$(VERSION) $(O)/$(LIB_SONAME)
	ln -sf libxprt.so.$(VERSION) $@

# The .pc is written again at install time: its paths are PREFIX's.
# Directories under PREFIX are written relative to ${prefix}, so that
# pkg-config --define-variable=prefix=... relocates a staged tree.
PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	    -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@REQUIRES@|$(PKG_LIB)|'

$(O)/libxprt.pc: libxprt.pc.in Makefile
	@mkdir -p $(@D)
	$(PC_SED) $< > $@
