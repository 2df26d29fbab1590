# storage_engine: PGXS build.
#
# Every .c under src/ is part of the module; new files need no edit here.
# Compression libraries are detected from their headers: a codec whose
# library is absent stays registered but reports itself unavailable.

EXTENSION = storage_engine
MODULE_big = storage_engine
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(EXTENSION).control)

SRCS = $(sort $(wildcard src/*.c src/*/*.c))
OBJS = $(SRCS:.c=.o)

# One canonical install script; PGXS wants it under the versioned name.
DATA_built = $(EXTENSION)--$(EXTVERSION).sql
DATA = $(wildcard sql/$(EXTENSION)--*--*.sql)
EXTRA_CLEAN = $(EXTENSION)--$(EXTVERSION).sql

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)

has_header = $(shell printf '\#include <$(1)>\n' | $(CC) -E - >/dev/null 2>&1 && echo yes)
ifeq ($(call has_header,lz4.h),yes)
PG_CPPFLAGS += -DHAVE_LIBLZ4
SHLIB_LINK += -llz4
endif
ifeq ($(call has_header,zstd.h),yes)
PG_CPPFLAGS += -DHAVE_LIBZSTD
SHLIB_LINK += -lzstd
endif
ifeq ($(call has_header,libdeflate.h),yes)
PG_CPPFLAGS += -DHAVE_LIBDEFLATE
SHLIB_LINK += -ldeflate
endif

PG_CPPFLAGS += -I$(srcdir)/src
PG_CFLAGS += -Wall -Werror -Wmissing-prototypes -Wdeclaration-after-statement

include $(PGXS)

# A server built with a newer compiler passes warning flags ours may not know.
unknown_cflags := $(foreach f,-Wmissing-variable-declarations,$(if $(shell $(CC) -Werror $(f) -x c -c -o /dev/null /dev/null 2>/dev/null && echo ok),,$(f)))
override CFLAGS := $(filter-out $(unknown_cflags),$(CFLAGS))

$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql
	cp $< $@

# Object files depend on every header: the tree is small and a stale object
# after a struct change costs more than a full rebuild.
$(OBJS): $(wildcard src/*.h src/*/*.h)
