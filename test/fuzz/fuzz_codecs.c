/*-------------------------------------------------------------------------
 *
 * fuzz_codecs.c
 *	  Standalone fuzz harness for the decoders that read untrusted bytes
 *	  from disk: the compression codecs of src/codec and the column chunk
 *	  value layout (src/codec/value_encoding.c; targets chunk.*), the
 *	  frame directory of framed units (src/codec/frames.c; frames.*), and
 *	  the stored units' checksum (src/codec/checksum.c; checksum.*).  It
 *	  runs outside the server, links the decoders' sources directly and is
 *	  meant to be built with
 *	  -fsanitize=address,undefined (test/fuzz/run.sh does that).
 *
 *	  The harness is a list of targets.  A target is a name and a function
 *	  that takes one input, (const uint8 *data, size_t len), derives
 *	  everything it does from those bytes, and calls fuzz_fail() when a
 *	  property does not hold.  The same targets run in two drivers:
 *
 *	  - the built-in random driver (default): deterministic from --seed,
 *	    runs the enabled targets round-robin on random inputs for
 *	    --seconds or --iterations, and ends with "fuzz: ok (N iterations)";
 *	  - libFuzzer (build with -DFUZZ_LIBFUZZER -fsanitize=fuzzer under
 *	    clang): LLVMFuzzerTestOneInput runs the target named by the
 *	    FUZZ_TARGET environment variable, or picks one by the first byte.
 *
 *	  A failing input is written to $FUZZ_CRASH_DIR (default ".") as
 *	  crash-<target>-<iteration>.bin; replay it with
 *	  "fuzz_codecs --target <target> --replay <file>".
 *
 *	  Memory safety is checked beyond what the sanitizers see: the
 *	  compression libraries and libpgcommon are not instrumented, so every
 *	  buffer handed to a codec is placed flush against a PROT_NONE guard
 *	  page (alternately at its end and at its start), with canary bytes on
 *	  the open side; the slack is also poisoned for AddressSanitizer.  A
 *	  decoder that needs a MAXALIGNed buffer (value_decode) gets
 *	  fuzz_place_copy_maxaligned(): at the end, its placement stops up to
 *	  7 bytes short of the guard page, and those bytes are canaries that
 *	  ASan also sees as poisoned.
 *
 *	  HOW TO ADD A TARGET (e.g. the row batch decoder; the chunk.*
 *	  targets are a worked example):
 *	  1. Write "static void fuzz_batch_decode(const uint8 *data,
 *	     size_t len)" below.  Keep it a pure function of its input: draw
 *	     every choice from data (a FuzzReader helps; a FuzzRng seeded
 *	     with rng_seed_from(data) is fine too), never from a global random
 *	     state, so a saved crash input replays.  Random bytes rarely get
 *	     past a format's first checks, so build a valid encoding from part
 *	     of the input (as codec_decode_target and fuzz_chunk_decode do),
 *	     mutate it with fuzz_mutate() (and, as chunk_mutate_structured
 *	     does, with mutations aimed at the format's own boundaries: random
 *	     offsets seldom hit a length field), then decode it.  Use
 *	     fuzz_place() (or fuzz_place_copy_maxaligned()) for the buffers the
 *	     decoder reads and writes, fuzz_check_canaries() after the call,
 *	     and FUZZ_CHECK() for every property ("a successful decode returns
 *	     the encoded values", "decoding is deterministic", ...).
 *	  2. Add {"batch.decode", fuzz_batch_decode, NULL} to fuzz_targets[]
 *	     (the third field can gate the target on a build option).
 *	     Summary counts group targets by the name before the dot.
 *	  3. Add the decoder's .c files to SOURCES in test/fuzz/run.sh; they
 *	     must build with FRONTEND defined: no ereport/elog, no server-only
 *	     headers (compat.h is one: include compat/compat_varatt.h for the
 *	     varlena macros).  postgres.h is FRONTEND-safe and gives Datum.
 *	     StringInfo and palloc work (libpgcommon, and the harness's own
 *	     palloc below for PostgreSQL 16+).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "port/pg_crc32c.h"

#include "codec/chars_encoding.h"
#include "codec/checksum.h"
#include "codec/codec.h"
/* Datum and the varlena macros: postgres.h is FRONTEND-safe. */
#include "codec/dict_encoding.h"
#include "codec/frames.h"
#include "codec/packed_encoding.h"
#include "vector/agg_distinct.h"
#include "vector/numeric_scaled.h"
#include "codec/value_encoding.h"
#include "compat/compat_varatt.h"
#include "catalog/pg_type_d.h"
#include "port/pg_bitutils.h"

/* AddressSanitizer, under either compiler. */
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif

#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define FUZZ_POISON(p, n)	ASAN_POISON_MEMORY_REGION((p), (n))
#define FUZZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#define FUZZ_NO_ASAN __attribute__((no_sanitize_address))
#else
#define FUZZ_POISON(p, n)	((void) 0)
#define FUZZ_UNPOISON(p, n) ((void) 0)
#define FUZZ_NO_ASAN
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FUZZ_NORETURN __attribute__((noreturn))
#else
#define FUZZ_NORETURN
#endif

/* Largest input the shape builder makes, and the largest rawlen tried. */
#define FUZZ_MAX_INPUT		(256 * 1024)
#define FUZZ_MAX_RAW		(1024 * 1024)
/* Largest compressed or mutated buffer. */
#define FUZZ_MAX_COMP		(FUZZ_MAX_RAW + 64 * 1024)
/* Input cap at slow compression levels, to keep iterations quick. */
#define FUZZ_MAX_SLOW_INPUT (32 * 1024)
/* Canary bytes on the open side of a placed buffer. */
#define FUZZ_CANARY			64
#define FUZZ_CANARY_BYTE	0xCB

/* ----------------------------------------------------------------
 * Targets
 * ----------------------------------------------------------------
 */
typedef void (*FuzzTargetFn) (const uint8 *data, size_t len);

typedef struct FuzzTarget
{
	const char *name;			/* "<group>.<what>", e.g. "zstd.decode" */
	FuzzTargetFn run;
	bool		(*enabled) (void);	/* NULL: always enabled */
} FuzzTarget;

/* What the failure report and crash file need to know. */
static const char *cur_target = "(none)";
static const uint8 *cur_data = NULL;
static size_t cur_len = 0;
static uint64 cur_iteration = 0;
static uint64 run_seed = 1;
static const char *crash_dir = ".";
static bool libfuzzer_mode = false;

/* Counters for the summary. */
static uint64 stat_roundtrips = 0;
static uint64 stat_mutants = 0;
static uint64 stat_mutants_accepted = 0;

static void fuzz_fail(const char *fmt,...) pg_attribute_printf(1, 2) FUZZ_NORETURN;

#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			fuzz_fail(__VA_ARGS__); \
	} while (0)

/* Writes the current input where the report says; async-signal-safe. */
static void
save_crash_input(char *path, size_t pathsize)
{
	int			fd;
	size_t		off = 0;

	snprintf(path, pathsize, "%s/crash-%s-%llu.bin", crash_dir, cur_target,
			 (unsigned long long) cur_iteration);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
	{
		snprintf(path, pathsize, "(could not save input: %s)", strerror(errno));
		return;
	}
	while (cur_data != NULL && off < cur_len)
	{
		ssize_t		n = write(fd, cur_data + off, cur_len - off);

		if (n <= 0)
			break;
		off += n;
	}
	close(fd);
}

static void
fuzz_fail(const char *fmt,...)
{
	char		msg[512];
	char		path[1024];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	save_crash_input(path, sizeof(path));
	fflush(stdout);
	fprintf(stderr, "input (%zu bytes) saved to %s; replay: fuzz_codecs --target %s --replay %s\n",
			cur_len, path, cur_target, path);
	printf("fuzz: FAILED target %s iteration %llu seed %llu: %s\n",
		   cur_target, (unsigned long long) cur_iteration,
		   (unsigned long long) run_seed, msg);
	fflush(stdout);
	if (libfuzzer_mode)
		abort();
	exit(1);
}

#ifndef FUZZ_LIBFUZZER
#ifdef FUZZ_ASAN
/* Called by the sanitizer runtime after its report, before it exits. */
static void
sanitizer_death(void)
{
	char		path[1024];

	save_crash_input(path, sizeof(path));
	printf("fuzz: FAILED target %s iteration %llu seed %llu: sanitizer report above; input saved to %s\n",
		   cur_target, (unsigned long long) cur_iteration,
		   (unsigned long long) run_seed, path);
	fflush(stdout);
}
#else
/* Without ASan a guard page hit is a plain SIGSEGV: report and save. */
static void
fatal_signal(int signo)
{
	char		path[1024];
	char		msg[1400];

	save_crash_input(path, sizeof(path));
	snprintf(msg, sizeof(msg),
			 "fuzz: FAILED target %s iteration %llu: signal %d (guard page hit?); input saved to %s\n",
			 cur_target, (unsigned long long) cur_iteration, signo, path);
	if (write(STDOUT_FILENO, msg, strlen(msg)) < 0)
		_exit(2);
	_exit(1);
}
#endif							/* FUZZ_ASAN */
#endif							/* !FUZZ_LIBFUZZER */

/* ----------------------------------------------------------------
 * Deterministic pseudo-random numbers (splitmix64)
 * ----------------------------------------------------------------
 */
typedef struct FuzzRng
{
	uint64		state;
} FuzzRng;

static uint64
rng_next(FuzzRng *rng)
{
	uint64		z = (rng->state += UINT64CONST(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Uniform in [0, n); 0 when n is 0. */
static uint64
rng_below(FuzzRng *rng, uint64 n)
{
	return n == 0 ? 0 : rng_next(rng) % n;
}

/* A target's incidental choices come from a hash of its input. */
static void
rng_seed_from(FuzzRng *rng, const uint8 *data, size_t len)
{
	uint64		h = UINT64CONST(0xCBF29CE484222325);
	size_t		i;

	for (i = 0; i < len; i++)
		h = (h ^ data[i]) * UINT64CONST(0x100000001B3);
	rng->state = h ^ len;
}

/* ----------------------------------------------------------------
 * Reading parameters from the input
 * ----------------------------------------------------------------
 */
typedef struct FuzzReader
{
	const uint8 *p;
	size_t		left;
} FuzzReader;

/* Next byte of input, 0 once it is used up. */
static uint32
rd_u8(FuzzReader *r)
{
	if (r->left == 0)
		return 0;
	r->left--;
	return *r->p++;
}

static uint32
rd_u16(FuzzReader *r)
{
	uint32		lo = rd_u8(r);

	return lo | (rd_u8(r) << 8);
}

static uint32
rd_u32(FuzzReader *r)
{
	uint32		lo = rd_u16(r);

	return lo | (rd_u16(r) << 16);
}

/* ----------------------------------------------------------------
 * Guarded buffers
 * ----------------------------------------------------------------
 */
typedef struct GuardedBuffer
{
	uint8	   *area;			/* first usable byte, after a guard page */
	size_t		size;			/* usable bytes, whole pages */
	uint8	   *ptr;			/* current placement */
	size_t		len;
	bool		at_end;
} GuardedBuffer;

static void
guard_init(GuardedBuffer *g, size_t maxlen)
{
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);
	size_t		usable = (maxlen + FUZZ_CANARY + page - 1) / page * page;
	uint8	   *map;

	map = mmap(NULL, usable + 2 * page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED ||
		mprotect(map, page, PROT_NONE) != 0 ||
		mprotect(map + page + usable, page, PROT_NONE) != 0)
	{
		fprintf(stderr, "fuzz: cannot map guarded buffer: %s\n", strerror(errno));
		exit(1);
	}
	g->area = map + page;
	g->size = usable;
	g->ptr = g->area;
	g->len = 0;
	g->at_end = false;
	FUZZ_POISON(g->area, g->size);
}

/* The canary window on the open side of the placement. */
static void
guard_canary_window(const GuardedBuffer *g, uint8 **start, size_t *n)
{
	if (g->at_end)
	{
		*n = Min((size_t) FUZZ_CANARY, (size_t) (g->ptr - g->area));
		*start = g->ptr - *n;
	}
	else
	{
		*start = g->ptr + g->len;
		*n = Min((size_t) FUZZ_CANARY, g->size - g->len);
	}
}

/* Byte loops the sanitizer does not see: the canaries live in poison. */
FUZZ_NO_ASAN static void
canary_fill(volatile uint8 *p, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		p[i] = FUZZ_CANARY_BYTE;
}

FUZZ_NO_ASAN static bool
canary_intact(const volatile uint8 *p, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		if (p[i] != FUZZ_CANARY_BYTE)
			return false;
	}
	return true;
}

/*
 * Places len bytes flush against the trailing guard page (at_end) or the
 * leading one, fills the canary window on the other side and leaves only
 * the placed bytes addressable for ASan.  Returns the placement.
 */
static uint8 *
fuzz_place(GuardedBuffer *g, size_t len, bool at_end)
{
	uint8	   *cstart;
	size_t		cn;

	if (len > g->size - FUZZ_CANARY)
	{
		fprintf(stderr, "fuzz: placement of %zu bytes exceeds buffer\n", len);
		abort();
	}
	FUZZ_POISON(g->ptr, g->len);
	g->at_end = at_end;
	g->len = len;
	g->ptr = at_end ? g->area + g->size - len : g->area;
	FUZZ_UNPOISON(g->ptr, len);
	guard_canary_window(g, &cstart, &cn);
	canary_fill(cstart, cn);
	return g->ptr;
}

/* Places a copy of src, len bytes. */
static uint8 *
fuzz_place_copy(GuardedBuffer *g, const void *src, size_t len, bool at_end)
{
	uint8	   *p = fuzz_place(g, len, at_end);

	if (len > 0)
		memcpy(p, src, len);
	return p;
}

static void
fuzz_check_canaries(const GuardedBuffer *g, const char *what)
{
	uint8	   *cstart;
	size_t		cn;

	guard_canary_window(g, &cstart, &cn);
	FUZZ_CHECK(canary_intact(cstart, cn),
			   "%s: bytes written outside the %zu-byte %s buffer (%s side)",
			   cur_target, g->len, what, g->at_end ? "leading" : "trailing");
}

/* Shared buffers: the codec's input and output, a second output. */
static GuardedBuffer gb_src;
static GuardedBuffer gb_dst;
static GuardedBuffer gb_dst2;

/* Plain scratch buffers. */
static uint8 *scratch_input;	/* built input, FUZZ_MAX_INPUT */
static uint8 *scratch_comp;		/* compressed input, FUZZ_MAX_COMP */
static uint8 *scratch_mut;		/* mutated buffer, FUZZ_MAX_COMP */
static uint8 *scratch_ref;		/* reference decoder output, FUZZ_MAX_RAW */
static uint8 *scratch_ext;		/* an input with one byte appended */
static uint8 *scratch_sparse;	/* a frame's prefix and one row's span */

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n);

	if (p == NULL)
	{
		fprintf(stderr, "fuzz: out of memory\n");
		exit(1);
	}
	return p;
}

/*
 * The frontend allocator the StringInfo functions of libpgcommon call.
 * PostgreSQL 16 and later leave fe_memutils out of libpgcommon_shlib
 * (libpq must not exit on out-of-memory), so the harness supplies palloc,
 * palloc0, repalloc and pfree itself.  They are weak: where the library has them
 * (15), whichever the linker picks behaves the same.
 */
__attribute__((weak)) void *
palloc(Size size)
{
	void	   *p = malloc(size > 0 ? size : 1);

	if (p == NULL)
	{
		fprintf(stderr, "fuzz: out of memory\n");
		exit(1);
	}
	return p;
}

__attribute__((weak)) void *
palloc0(Size size)
{
	void	   *p = palloc(size);

	memset(p, 0, size > 0 ? size : 1);
	return p;
}

__attribute__((weak)) void *
repalloc(void *pointer, Size size)
{
	void	   *p = realloc(pointer, size > 0 ? size : 1);

	if (p == NULL)
	{
		fprintf(stderr, "fuzz: out of memory\n");
		exit(1);
	}
	return p;
}

__attribute__((weak)) void
pfree(void *pointer)
{
	free(pointer);
}

static void chunk_setup(void);

static void
fuzz_setup(void)
{
	guard_init(&gb_src, FUZZ_MAX_COMP + 1);
	guard_init(&gb_dst, FUZZ_MAX_RAW + 1);
	guard_init(&gb_dst2, FUZZ_MAX_RAW + 1);
	scratch_input = xmalloc(FUZZ_MAX_INPUT);
	scratch_comp = xmalloc(FUZZ_MAX_COMP + 1);
	scratch_mut = xmalloc(FUZZ_MAX_COMP + 1);
	scratch_ref = xmalloc(FUZZ_MAX_RAW + 1);
	scratch_ext = xmalloc(FUZZ_MAX_COMP + 1);
	scratch_sparse = xmalloc(FUZZ_MAX_COMP + 1);
	chunk_setup();
}

/* ----------------------------------------------------------------
 * Building inputs of many shapes
 * ----------------------------------------------------------------
 */
#define SHAPE_COUNT 10

static const char *const shape_names[SHAPE_COUNT] = {
	"raw", "runs", "pattern", "text", "int32", "zeros", "empty", "mixed",
	"int64", "single-byte"
};

/*
 * Builds an input of the given shape into out from the payload bytes,
 * aiming at target bytes and never exceeding limit.  Returns its length.
 */
static size_t
build_input(int shape, size_t target, const uint8 *pl, size_t pln,
			uint8 *out, size_t limit)
{
	size_t		n = 0;
	size_t		i = 0;

	target = Min(target, limit);
	switch (shape)
	{
		case 0:					/* random bytes: incompressible */
			n = Min(pln, limit);
			memcpy(out, pl, n);
			break;
		case 1:					/* runs of (value, length) pairs */
			while (n < target && pln >= 2)
			{
				uint8		v = pl[i % pln];
				size_t		run = pl[(i + 1) % pln] % 200 + 1;

				run = Min(run, target - n);
				memset(out + n, v, run);
				n += run;
				i += 2;
			}
			break;
		case 2:					/* a short pattern repeated */
			if (pln >= 2)
			{
				size_t		k = Min((size_t) pl[0] % 16 + 1, pln - 1);

				for (n = 0; n < target; n++)
					out[n] = pl[1 + n % k];
			}
			break;
		case 3:					/* text over a small alphabet */
			if (pln > 0)
			{
				static const char alphabet[] = "etaoin shrdlu,.\n";

				for (n = 0; n < target; n++)
				{
					uint8		b = pl[n % pln];

					out[n] = alphabet[(b ^ (n / pln)) % 16];
				}
			}
			break;
		case 4:					/* int32 column with small deltas */
			{
				int32		v = pln > 0 ? (int32) pl[0] << 16 : 0;

				while (n + 4 <= target && pln > 0)
				{
					v += (int8) pl[i++ % pln];
					memcpy(out + n, &v, 4);
					n += 4;
				}
			}
			break;
		case 5:					/* zeros */
			n = target;
			memset(out, 0, n);
			break;
		case 6:					/* empty */
			n = 0;
			break;
		case 7:					/* raw stretches and runs, alternating */
			while (n < target && i < pln)
			{
				size_t		seg = Min((size_t) pl[i] % 64 + 1, target - n);

				if (pl[i] & 0x80)
				{
					memset(out + n, i + 1 < pln ? pl[i + 1] : 0, seg);
					i += 2;
				}
				else
				{
					size_t		j;

					for (j = 0; j < seg; j++)
						out[n + j] = pl[(i + 1 + j) % pln];
					i += 1 + seg;
				}
				n += seg;
			}
			break;
		case 8:					/* int64 timestamps: steady step, jitter */
			{
				int64		v = INT64CONST(1700000000000000);

				while (n + 8 <= target && pln > 0)
				{
					v += 1000000 + (int8) pl[i++ % pln];
					memcpy(out + n, &v, 8);
					n += 8;
				}
			}
			break;
		default:				/* one byte value throughout */
			n = target;
			memset(out, pln > 0 ? pl[0] : 0x55, n);
			break;
	}
	return n;
}

/* A target length from a size class (0..7) and 16 random bits. */
static size_t
pick_target_len(uint32 sizeclass, uint32 bits)
{
	static const size_t limits[8] = {
		64, 256, 1024, 4096, 16384, 65536, 131072, FUZZ_MAX_INPUT
	};

	return (size_t) (((uint64) bits * 4099) % limits[sizeclass & 7]);
}

/* ----------------------------------------------------------------
 * Levels
 * ----------------------------------------------------------------
 */

/* A level to pass to compress: default, edges, out of range, or any. */
static int
pick_level(const Codec *c, uint32 sel)
{
	int			span = c->max_level - c->min_level + 1;

	switch (sel % 8)
	{
		case 0:
			return 0;			/* selects the default */
		case 1:
			return c->min_level;
		case 2:
			return c->max_level;
		case 3:
			return c->default_level;
		case 4:
			return c->min_level - 7;	/* clamped up */
		case 5:
			return c->max_level + 5;	/* clamped down */
		default:
			return c->min_level + (int) ((sel >> 3) % span);
	}
}

/* The level the codec documents it will use for a requested level. */
static int
effective_level(const Codec *c, int level)
{
	if (level == 0)
		return c->default_level;
	return Max(c->min_level, Min(c->max_level, level));
}

/* Slow levels get smaller inputs. */
static bool
level_is_slow(const Codec *c, int level)
{
	int			eff = effective_level(c, level);

	switch (c->id)
	{
		case CODEC_ZSTD:
			return eff >= 10;
		case CODEC_DEFLATE:
			return eff >= 10;
		case CODEC_LZ4:
			return eff >= 9;
		default:
			return false;
	}
}

/* ----------------------------------------------------------------
 * Reference decoders, for the codecs where an independent one is short
 * ----------------------------------------------------------------
 */

/*
 * Strict pglz decoder written from the format description: returns true
 * when src decodes to exactly rawlen bytes consuming exactly srclen bytes,
 * with every match offset inside the output produced so far and no match
 * longer than the output left.  That is the codec's documented contract.
 */
static bool
ref_pglz_decode(const uint8 *src, size_t srclen, uint8 *out, size_t rawlen)
{
	size_t		sp = 0;
	size_t		dp = 0;

	while (dp < rawlen)
	{
		uint8		ctrl;
		int			bit;

		if (sp >= srclen)
			return false;
		ctrl = src[sp++];
		for (bit = 0; bit < 8 && dp < rawlen; bit++)
		{
			if (sp >= srclen)
				return false;
			if (ctrl & (1 << bit))
			{
				size_t		len,
							off,
							k;

				if (srclen - sp < 2)
					return false;
				len = (src[sp] & 0x0f) + 3;
				off = ((size_t) (src[sp] & 0xf0) << 4) | src[sp + 1];
				sp += 2;
				if (len == 18)
				{
					if (sp >= srclen)
						return false;
					len += src[sp++];
				}
				if (off < 1 || off > dp || len > rawlen - dp)
					return false;
				for (k = 0; k < len; k++, dp++)
					out[dp] = out[dp - off];
			}
			else
				out[dp++] = src[sp++];
		}
	}
	return sp == srclen;
}

/*
 * Runs the reference decoder for codec id if there is one: returns -1 when
 * there is none, else 1 or 0 as it accepts or rejects, with its output in
 * scratch_ref.
 */
static int
reference_decode(CodecId id, const uint8 *src, size_t srclen, size_t rawlen)
{
	switch (id)
	{
		case CODEC_NONE:
			if (srclen != rawlen)
				return 0;
			if (rawlen > 0)
				memcpy(scratch_ref, src, rawlen);
			return 1;
		case CODEC_PGLZ:
			return ref_pglz_decode(src, srclen, scratch_ref, rawlen) ? 1 : 0;
		default:
			return -1;
	}
}

/* ----------------------------------------------------------------
 * Calling a codec with guarded buffers
 * ----------------------------------------------------------------
 */

/*
 * Decompresses src (copied into a guarded buffer) into a guarded output of
 * rawlen bytes in gb, checking the canaries of both.  The output is left
 * in gb->ptr.
 */
static bool
guarded_decompress(const Codec *c, const uint8 *src, size_t srclen,
				   size_t rawlen, GuardedBuffer *gb, FuzzRng *rng,
				   int prefill)
{
	uint8	   *in = fuzz_place_copy(&gb_src, src, srclen, rng_below(rng, 2));
	uint8	   *out = fuzz_place(gb, rawlen, rng_below(rng, 2));
	bool		ok;

	if (prefill >= 0 && rawlen > 0)
		memset(out, prefill, rawlen);
	ok = c->decompress((const char *) in, (int32) srclen, (char *) out,
					   (int32) rawlen);
	fuzz_check_canaries(&gb_src, "decompress input");
	fuzz_check_canaries(gb, "decompress output");
	FUZZ_CHECK(srclen == 0 || memcmp(in, src, srclen) == 0,
			   "%s.decompress modified its input", c->name);
	return ok;
}

/*
 * Properties of a decode that returned true for (src, srclen, rawlen),
 * with its output in gb_dst: it is deterministic and writes every output
 * byte; it matches the reference decoder where there is one; and it is
 * exact, so one byte more or less of output or input is refused.
 */
static void
check_accepted_decode(const Codec *c, const uint8 *src, size_t srclen,
					  size_t rawlen, FuzzRng *rng)
{
	int			ref;
	bool		ok;

	/* Deterministic, and all rawlen bytes written: two prefills agree. */
	ok = guarded_decompress(c, src, srclen, rawlen, &gb_dst, rng, 0xA5);
	FUZZ_CHECK(ok, "%s: decode accepted once, then refused the same input", c->name);
	ok = guarded_decompress(c, src, srclen, rawlen, &gb_dst2, rng, 0x5A);
	FUZZ_CHECK(ok, "%s: decode accepted once, then refused the same input", c->name);
	FUZZ_CHECK(rawlen == 0 || memcmp(gb_dst.ptr, gb_dst2.ptr, rawlen) == 0,
			   "%s: decode of %zu bytes is not deterministic or leaves output bytes unwritten",
			   c->name, srclen);

	ref = reference_decode(c->id, src, srclen, rawlen);
	FUZZ_CHECK(ref != 0, "%s: codec accepted (srclen %zu, rawlen %zu), reference decoder refused",
			   c->name, srclen, rawlen);
	FUZZ_CHECK(ref < 0 || rawlen == 0 || memcmp(gb_dst.ptr, scratch_ref, rawlen) == 0,
			   "%s: output differs from the reference decoder (srclen %zu, rawlen %zu)",
			   c->name, srclen, rawlen);

	/* Exactly rawlen bytes of output... */
	if (rawlen > 0)
		FUZZ_CHECK(!guarded_decompress(c, src, srclen, rawlen - 1, &gb_dst2, rng, -1),
				   "%s: accepted rawlen %zu and %zu for the same input", c->name, rawlen, rawlen - 1);
	if (rawlen < FUZZ_MAX_RAW)
		FUZZ_CHECK(!guarded_decompress(c, src, srclen, rawlen + 1, &gb_dst2, rng, -1),
				   "%s: accepted rawlen %zu and %zu for the same input", c->name, rawlen, rawlen + 1);

	/* ...from exactly srclen bytes of input. */
	if (srclen > 0)
		FUZZ_CHECK(!guarded_decompress(c, src, srclen - 1, rawlen, &gb_dst2, rng, -1),
				   "%s: accepted the input without its last byte", c->name);
	if (srclen < FUZZ_MAX_COMP)
	{
		memcpy(scratch_ext, src, srclen);
		scratch_ext[srclen] = (uint8) rng_next(rng);
		FUZZ_CHECK(!guarded_decompress(c, scratch_ext, srclen + 1, rawlen, &gb_dst2, rng, -1),
				   "%s: accepted the input with one byte appended", c->name);
	}
}

/* ----------------------------------------------------------------
 * Mutations of a valid compressed buffer
 * ----------------------------------------------------------------
 */

/*
 * Applies nmut mutations, each described by five input bytes, to the
 * buffer m of *mlen bytes (room for FUZZ_MAX_COMP), with orig (the
 * unmutated buffer) and raw (the uncompressed input) as splice sources.
 */
static void
fuzz_mutate(FuzzReader *r, int nmut, uint8 *m, size_t *mlen,
			const uint8 *orig, size_t origlen,
			const uint8 *raw, size_t rawlen)
{
	int			i;

	for (i = 0; i < nmut; i++)
	{
		uint32		op = rd_u8(r);
		uint32		a = rd_u16(r);
		uint32		b = rd_u16(r);
		size_t		n = *mlen;
		size_t		pos = n > 0 ? a % n : 0;

		switch (op % 11)
		{
			case 0:				/* flip one bit */
				if (n > 0)
					m[pos] ^= (uint8) (1 << (b & 7));
				break;
			case 1:				/* overwrite one byte */
				if (n > 0)
					m[pos] = (uint8) b;
				break;
			case 2:				/* truncate */
				*mlen = n > 0 ? a % (n + 1) : 0;
				break;
			case 3:				/* extend with bytes */
				{
					size_t		add = Min((size_t) (b % 64 + 1), FUZZ_MAX_COMP - n);
					size_t		j;

					for (j = 0; j < add; j++)
						m[n + j] = (uint8) (a + j * b);
					*mlen = n + add;
				}
				break;
			case 4:				/* copy a stretch within the buffer */
				if (n > 0)
				{
					size_t		from = b % n;
					size_t		len = Min((size_t) (op >> 4) + 1, n - Max(from, pos));

					memmove(m + pos, m + from, len);
				}
				break;
			case 5:				/* insert a byte */
				if (n < FUZZ_MAX_COMP)
				{
					memmove(m + pos + 1, m + pos, n - pos);
					m[pos] = (uint8) b;
					*mlen = n + 1;
				}
				break;
			case 6:				/* delete a stretch */
				if (n > 0)
				{
					size_t		len = Min((size_t) (b % 16 + 1), n - pos);

					memmove(m + pos, m + pos + len, n - pos - len);
					*mlen = n - len;
				}
				break;
			case 7:				/* an interesting 16- or 32-bit value */
				{
					static const uint32 values[] = {
						0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF,
						0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x10000
					};
					uint32		v = values[b % lengthof(values)];
					size_t		w = (b & 0x100) ? 4 : 2;

					if (n >= w)
					{
						pos = a % (n - w + 1);
						memcpy(m + pos, &v, w);
					}
				}
				break;
			case 8:				/* splice in raw input bytes */
				if (n > 0 && rawlen > 0)
				{
					size_t		from = b % rawlen;
					size_t		len = Min(Min((size_t) (op >> 3) + 1, rawlen - from), n - pos);

					memcpy(m + pos, raw + from, len);
				}
				break;
			case 9:				/* append the original again */
				if (n + origlen <= FUZZ_MAX_COMP)
				{
					memcpy(m + n, orig, origlen);
					*mlen = n + origlen;
				}
				break;
			default:			/* splice the original's tail at pos */
				if (origlen > 0)
				{
					size_t		from = b % origlen;
					size_t		len = Min(origlen - from, FUZZ_MAX_COMP - pos);

					memcpy(m + pos, orig + from, len);
					*mlen = pos + len;
				}
				break;
		}
	}
}

/* ----------------------------------------------------------------
 * The codec targets
 * ----------------------------------------------------------------
 */

/*
 * Input layout: shape, level selector, dstcap selector (size class in its
 * top bits), 16 bits of target length, then the payload.
 *
 * Compresses an input of the chosen shape at the chosen level into a
 * guarded buffer of the chosen capacity; a result must be smaller than
 * the input and fit; it must then decode to exactly the input, and the
 * decode must be exact (check_accepted_decode).
 */
static void
codec_roundtrip_target(CodecId id, const uint8 *data, size_t len)
{
	const Codec *c = codec_by_id(id);
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	uint32		shape = rd_u8(&r) % SHAPE_COUNT;
	uint32		levelsel = rd_u8(&r);
	uint32		capsel = rd_u8(&r);
	uint32		lenbits = rd_u16(&r);
	int			level = pick_level(c, levelsel);
	size_t		limit = level_is_slow(c, level) ? FUZZ_MAX_SLOW_INPUT : FUZZ_MAX_INPUT;
	size_t		inlen;
	int32		bound;
	size_t		dstcap;
	uint8	   *in;
	uint8	   *out;
	int32		clen;
	bool		ok;

	rng_seed_from(&rng, data, len);
	inlen = build_input(shape, pick_target_len(capsel >> 5, lenbits),
						r.p, r.left, scratch_input, limit);

	bound = c->bound((int32) inlen);
	FUZZ_CHECK(bound >= (int32) inlen, "%s.bound(%zu) = %d is below the input length",
			   c->name, inlen, bound);
	switch (capsel & 7)
	{
		case 5:
			dstcap = inlen > 0 ? inlen - 1 : 0;
			break;
		case 6:
			dstcap = inlen / 2;
			break;
		case 7:
			dstcap = rng_below(&rng, inlen + 1);
			break;
		default:
			dstcap = bound;
			break;
	}

	in = fuzz_place_copy(&gb_src, scratch_input, inlen, rng_below(&rng, 2));
	out = fuzz_place(&gb_dst, dstcap, rng_below(&rng, 2));
	clen = c->compress((const char *) in, (int32) inlen, (char *) out,
					   (int32) dstcap, level);
	fuzz_check_canaries(&gb_src, "compress input");
	fuzz_check_canaries(&gb_dst, "compress output");
	FUZZ_CHECK(inlen == 0 || memcmp(in, scratch_input, inlen) == 0,
			   "%s.compress modified its input", c->name);
	FUZZ_CHECK(clen >= -1, "%s.compress returned %d", c->name, clen);

	if (clen < 0)
	{
		/*
		 * Declining is always allowed, except that with a full-size buffer
		 * a real codec must compress a long run of one byte.
		 */
		FUZZ_CHECK(!(c->id != CODEC_NONE && dstcap == (size_t) bound &&
					 inlen >= 256 && (shape == 5 || shape == 9)),
				   "%s.compress declined %zu bytes of %s at level %d",
				   c->name, inlen, shape_names[shape], level);
		FUZZ_CHECK(c->id != CODEC_NONE || clen == -1, "none.compress must decline");

		/* What the caller stores instead: raw bytes, read back via none. */
		if (c->id == CODEC_NONE)
		{
			ok = guarded_decompress(c, scratch_input, inlen, inlen, &gb_dst, &rng, -1);
			FUZZ_CHECK(ok && (inlen == 0 || memcmp(gb_dst.ptr, scratch_input, inlen) == 0),
					   "none: raw bytes did not read back");
			stat_roundtrips++;
		}
		return;
	}

	FUZZ_CHECK((size_t) clen < inlen && (size_t) clen <= dstcap,
			   "%s.compress returned %d for %zu input bytes into %zu bytes of room",
			   c->name, clen, inlen, dstcap);
	memcpy(scratch_comp, out, clen);

	/* Levels out of range behave as the clamped level, 0 as the default. */
	if ((levelsel % 8) == 0 || (levelsel % 8) == 4 || (levelsel % 8) == 5)
	{
		int			eff = effective_level(c, level);
		int32		clen2;

		in = fuzz_place_copy(&gb_src, scratch_input, inlen, rng_below(&rng, 2));
		out = fuzz_place(&gb_dst, dstcap, rng_below(&rng, 2));
		clen2 = c->compress((const char *) in, (int32) inlen, (char *) out,
							(int32) dstcap, eff);
		FUZZ_CHECK(clen2 == clen && memcmp(out, scratch_comp, clen) == 0,
				   "%s: level %d does not behave as level %d", c->name, level, eff);
	}

	ok = guarded_decompress(c, scratch_comp, clen, inlen, &gb_dst, &rng, -1);
	FUZZ_CHECK(ok, "%s: failed to decompress its own output (%zu bytes of %s at level %d -> %d)",
			   c->name, inlen, shape_names[shape], level, clen);
	FUZZ_CHECK(inlen == 0 || memcmp(gb_dst.ptr, scratch_input, inlen) == 0,
			   "%s: round trip changed the data (%zu bytes of %s at level %d)",
			   c->name, inlen, shape_names[shape], level);
	check_accepted_decode(c, scratch_comp, clen, inlen, &rng);
	stat_roundtrips++;
}

/* A rawlen to try: the true one, near it, or anything. */
static size_t
pick_rawlen(uint32 sel, size_t truelen, size_t srclen)
{
	switch (sel & 3)
	{
		case 0:
		case 1:
			return truelen;
		case 2:
			{
				int64		v = (int64) truelen + (int64) ((sel >> 2) % 17) - 8;

				return (size_t) Max(Min(v, (int64) FUZZ_MAX_RAW), 0);
			}
		default:
			switch ((sel >> 2) & 3)
			{
				case 0:
					return (sel >> 4) % 64;
				case 1:
					return Min((size_t) ((sel >> 4) % 8 + 1) * srclen, (size_t) FUZZ_MAX_RAW);
				default:
					return (sel >> 4) % (FUZZ_MAX_RAW + 1);
			}
	}
}

/*
 * Input layout: mode, 32 bits of rawlen selector, then per mode.
 *
 * Mode 0 hands the rest of the input to decompress as it is.  The other
 * modes build and compress an input (shape, level selector, size class,
 * 16 bits of length), apply up to 8 mutations (count, then five bytes
 * each) and decompress the result.  Nothing may crash or touch memory
 * outside the buffers; an accepted decode must be deterministic, exact
 * and agree with the reference decoder; the unmutated buffer with its
 * true length must decode to the original input and be refused at any
 * other length.
 */
static void
codec_decode_target(CodecId id, const uint8 *data, size_t len)
{
	const Codec *c = codec_by_id(id);
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	uint32		mode = rd_u8(&r) % 4;
	uint32		rawsel = rd_u32(&r);
	const uint8 *src;
	size_t		srclen;
	size_t		inlen = 0;
	size_t		rawlen;
	bool		unmutated = false;
	bool		ok;
	int			ref;

	rng_seed_from(&rng, data, len);
	if (mode == 0)
	{
		srclen = Min(r.left, (size_t) FUZZ_MAX_COMP);
		memcpy(scratch_mut, r.p, srclen);
		src = scratch_mut;
		rawlen = pick_rawlen(rawsel | 3, srclen, srclen);
	}
	else
	{
		uint32		shape = rd_u8(&r) % SHAPE_COUNT;
		uint32		levelsel = rd_u8(&r);
		uint32		sizeclass = rd_u8(&r);
		uint32		lenbits = rd_u16(&r);
		int			nmut = (int) (rd_u8(&r) % 9);
		int			level = pick_level(c, levelsel);
		size_t		limit = level_is_slow(c, level) ? FUZZ_MAX_SLOW_INPUT : FUZZ_MAX_INPUT / 4;
		FuzzReader	mut = r;
		int32		clen;
		size_t		complen;

		if (mode == 3 && nmut == 0)
			nmut = 1;
		/* The mutation bytes come first, the payload after them. */
		r.p += Min(r.left, (size_t) nmut * 5);
		r.left -= Min(r.left, (size_t) nmut * 5);
		mut.left = Min(mut.left, (size_t) nmut * 5);

		inlen = build_input(shape, pick_target_len(sizeclass, lenbits),
							r.p, r.left, scratch_input, limit);
		clen = c->compress((const char *) scratch_input, (int32) inlen,
						   (char *) scratch_comp, c->bound((int32) inlen), level);
		if (clen >= 0)
			complen = clen;
		else
		{
			/* Not compressible: the stored form is the raw input. */
			complen = inlen;
			memcpy(scratch_comp, scratch_input, inlen);
		}
		memcpy(scratch_mut, scratch_comp, complen);
		srclen = complen;
		fuzz_mutate(&mut, nmut, scratch_mut, &srclen, scratch_comp, complen,
					scratch_input, inlen);
		src = scratch_mut;
		rawlen = pick_rawlen(rawsel, inlen, srclen);

		/*
		 * Unmutated and a real encoding (compressed, or raw for none):
		 * decoding it is checkable against the input.
		 */
		unmutated = (clen >= 0 || c->id == CODEC_NONE) &&
			srclen == complen && memcmp(scratch_mut, scratch_comp, complen) == 0;
		stat_mutants++;
	}

	ok = guarded_decompress(c, src, srclen, rawlen, &gb_dst, &rng, -1);
	if (unmutated)
	{
		FUZZ_CHECK(ok == (rawlen == inlen),
				   "%s: valid %zu-byte encoding of %zu bytes %s for rawlen %zu",
				   c->name, srclen, inlen, ok ? "accepted" : "refused", rawlen);
		FUZZ_CHECK(!ok || rawlen == 0 || memcmp(gb_dst.ptr, scratch_input, rawlen) == 0,
				   "%s: valid encoding decoded to the wrong bytes", c->name);
	}
	if (ok)
	{
		if (mode != 0 && !unmutated)
			stat_mutants_accepted++;
		check_accepted_decode(c, src, srclen, rawlen, &rng);
	}
	else
	{
		ref = reference_decode(c->id, src, srclen, rawlen);
		FUZZ_CHECK(ref != 1, "%s: codec refused (srclen %zu, rawlen %zu), reference decoder accepted",
				   c->name, srclen, rawlen);
	}
}

#define CODEC_TARGET_FUNCS(tag, id) \
static void \
fuzz_##tag##_roundtrip(const uint8 *data, size_t len) \
{ \
	codec_roundtrip_target(id, data, len); \
} \
static void \
fuzz_##tag##_decode(const uint8 *data, size_t len) \
{ \
	codec_decode_target(id, data, len); \
} \
static bool \
fuzz_##tag##_enabled(void) \
{ \
	return codec_by_id(id)->available; \
}

CODEC_TARGET_FUNCS(none, CODEC_NONE)
CODEC_TARGET_FUNCS(pglz, CODEC_PGLZ)
CODEC_TARGET_FUNCS(lz4, CODEC_LZ4)
CODEC_TARGET_FUNCS(zstd, CODEC_ZSTD)
CODEC_TARGET_FUNCS(deflate, CODEC_DEFLATE)

/* ----------------------------------------------------------------
 * The column chunk value layout (src/codec/value_encoding.c)
 * ----------------------------------------------------------------
 */
#define CHUNK_MAX_ROWS		2048	/* rows in a chunk the target builds */
#define CHUNK_MAX_EXPECTED	65536	/* largest expected_count tried */
#define CHUNK_ARENA			(1024 * 1024)	/* the original by-ref values */

/* How the decoder may treat non-null values of a type. */
typedef enum ChunkTypeKind
{
	CHUNK_TYPE_VALID,			/* a type PostgreSQL can define */
	CHUNK_TYPE_ODD,				/* not definable, still decodable */
	CHUNK_TYPE_BAD				/* every non-null value must be refused */
} ChunkTypeKind;

typedef struct ChunkShape
{
	const char *name;
	int16		typlen;			/* 0 with pick_len: chosen per input */
	bool		typbyval;
	char		typalign;
	bool		pick_len;
	ChunkTypeKind kind;
} ChunkShape;

/* The shapes chunk.decode builds chunks of; chunk.raw uses all. */
#define CHUNK_BUILD_SHAPES 11
static const ChunkShape chunk_shapes[] = {
	{"char", 1, true, TYPALIGN_CHAR, false, CHUNK_TYPE_VALID},
	{"int2", 2, true, TYPALIGN_SHORT, false, CHUNK_TYPE_VALID},
	{"int4", 4, true, TYPALIGN_INT, false, CHUNK_TYPE_VALID},
	{"int8", 8, true, TYPALIGN_DOUBLE, false, CHUNK_TYPE_VALID},
	{"fixed/c", 0, false, TYPALIGN_CHAR, true, CHUNK_TYPE_VALID},
	{"fixed/s", 0, false, TYPALIGN_SHORT, true, CHUNK_TYPE_VALID},
	{"fixed/i", 0, false, TYPALIGN_INT, true, CHUNK_TYPE_VALID},
	{"fixed/d", 0, false, TYPALIGN_DOUBLE, true, CHUNK_TYPE_VALID},
	{"varlena/i", -1, false, TYPALIGN_INT, false, CHUNK_TYPE_VALID},
	{"varlena/d", -1, false, TYPALIGN_DOUBLE, false, CHUNK_TYPE_VALID},
	{"cstring", -2, false, TYPALIGN_CHAR, false, CHUNK_TYPE_VALID},
	/* only in chunk.raw: */
	{"varlena/c", -1, false, TYPALIGN_CHAR, false, CHUNK_TYPE_ODD},
	{"varlena/s", -1, false, TYPALIGN_SHORT, false, CHUNK_TYPE_ODD},
	{"fixed/x", 5, false, 'x', false, CHUNK_TYPE_ODD},
	{"fixed/32767", 32767, false, TYPALIGN_DOUBLE, false, CHUNK_TYPE_ODD},
	{"byval/3", 3, true, TYPALIGN_INT, false, CHUNK_TYPE_BAD},
	{"byval/16", 16, true, TYPALIGN_DOUBLE, false, CHUNK_TYPE_BAD},
	{"byval/0", 0, true, TYPALIGN_CHAR, false, CHUNK_TYPE_BAD},
	{"byval/-1", -1, true, TYPALIGN_INT, false, CHUNK_TYPE_BAD},
	{"byref/0", 0, false, TYPALIGN_INT, false, CHUNK_TYPE_BAD},
	{"typlen/-3", -3, false, TYPALIGN_CHAR, false, CHUNK_TYPE_BAD},
	{"typlen/-32768", -32768, false, TYPALIGN_DOUBLE, false, CHUNK_TYPE_BAD},
};

/* A second guarded buffer for a re-encoded chunk. */
static GuardedBuffer gb_chunk2;
/* Packed decimals decoded as scaled integers, and their NULL flags. */
static GuardedBuffer gb_scaled;
static GuardedBuffer gb_scaled_isnull;

/* The rows a chunk is built from, and the values of an accepted decode. */
static Datum *chunk_orig_values;	/* CHUNK_MAX_ROWS */
static bool *chunk_orig_isnull;
static uint8 *chunk_arena;		/* CHUNK_ARENA, MAXALIGNed pieces */
static size_t chunk_arena_used;
static Datum *chunk_saved_values;	/* CHUNK_MAX_EXPECTED */
static bool *chunk_saved_isnull;

/* Offsets in a valid chunk where its structure is: see chunk_collect_bounds. */
#define CHUNK_MAX_BOUNDS (2 * CHUNK_MAX_ROWS + 4)
static uint32 chunk_bounds[CHUNK_MAX_BOUNDS];
static int	chunk_nbounds;

static void
chunk_setup(void)
{
	guard_init(&gb_chunk2, FUZZ_MAX_COMP + 1);
#ifdef HAVE_SCALED_NUMERIC
	guard_init(&gb_scaled, CHUNK_MAX_EXPECTED * sizeof(ScaledNumeric) + 1);
	guard_init(&gb_scaled_isnull, CHUNK_MAX_EXPECTED + 1);
#endif
	chunk_orig_values = xmalloc(CHUNK_MAX_ROWS * sizeof(Datum));
	chunk_orig_isnull = xmalloc(CHUNK_MAX_ROWS * sizeof(bool));
	chunk_arena = xmalloc(CHUNK_ARENA);
	chunk_saved_values = xmalloc(CHUNK_MAX_EXPECTED * sizeof(Datum));
	chunk_saved_isnull = xmalloc(CHUNK_MAX_EXPECTED * sizeof(bool));
	if (chunk_shapes[CHUNK_BUILD_SHAPES - 1].kind != CHUNK_TYPE_VALID ||
		chunk_shapes[CHUNK_BUILD_SHAPES].kind == CHUNK_TYPE_VALID)
	{
		fprintf(stderr, "fuzz: CHUNK_BUILD_SHAPES does not count the valid shapes\n");
		exit(1);
	}
}

/*
 * Like fuzz_place_copy, but at a MAXALIGNed address, as value_decode
 * requires.  At the start that is the guard page itself; at the end the
 * placement ends up to MAXIMUM_ALIGNOF - 1 bytes short of the guard page,
 * and those bytes are filled with canaries and poisoned for ASan (which
 * tracks addressability to the byte), so a read past len is still caught.
 */
static uint8 *
fuzz_place_copy_maxaligned(GuardedBuffer *g, const void *src, size_t len,
						   bool at_end)
{
	size_t		padded = at_end ? MAXALIGN(len) : len;
	uint8	   *p = fuzz_place(g, padded, at_end);

	if (padded > len)
	{
		canary_fill(p + len, padded - len);
		FUZZ_POISON(p + len, padded - len);
	}
	if (len > 0)
		memcpy(p, src, len);
	return p;
}

/* The gap a maxaligned placement of len bytes left before the guard page. */
static void
fuzz_check_aligned_gap(const GuardedBuffer *g, size_t len, const char *what)
{
	if (g->len > len)
		FUZZ_CHECK(canary_intact(g->ptr + len, g->len - len),
				   "%s: bytes written past the %zu-byte %s buffer",
				   cur_target, len, what);
}

/* A byte of value material: the input's, then the generator's. */
static uint8
chunk_byte(FuzzReader *r, FuzzRng *rng)
{
	if (r->left > 0)
		return (uint8) rd_u8(r);
	return (uint8) rng_next(rng);
}

static void
chunk_fill(uint8 *p, size_t n, uint32 how, FuzzReader *r, FuzzRng *rng)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		switch (how % 4)
		{
			case 0:
				p[i] = 0;
				break;
			case 1:
				p[i] = (uint8) (how >> 8);
				break;
			default:
				p[i] = chunk_byte(r, rng);
				break;
		}
	}
}

/* MAXALIGNed room for n bytes of one value, NULL when the arena is full. */
static uint8 *
chunk_alloc(size_t n)
{
	size_t		at = MAXALIGN(chunk_arena_used);

	if (n > CHUNK_ARENA || at > CHUNK_ARENA - n)
		return NULL;
	chunk_arena_used = at + n;
	return chunk_arena + at;
}

static int
chunk_alignment(char typalign)
{
	switch (typalign)
	{
		case TYPALIGN_SHORT:
			return ALIGNOF_SHORT;
		case TYPALIGN_INT:
			return ALIGNOF_INT;
		case TYPALIGN_DOUBLE:
			return ALIGNOF_DOUBLE;
		default:
			return 1;
	}
}

/* The type of a shape; the fixed length of a pick_len shape from sel. */
static ValueTypeInfo
chunk_type(const ChunkShape *shape, uint32 sel)
{
	static const int16 lengths[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 64};
	ValueTypeInfo t;

	t.typlen = shape->typlen;
	t.typbyval = shape->typbyval;
	t.typalign = shape->typalign;
	if (shape->pick_len)
		t.typlen = (sel & 0x80) ? (int16) (sel % 100 + 1) :
			lengths[sel % lengthof(lengths)];
	return t;
}

/* Rows in a built chunk: none, one, few, many, around a bitmap byte. */
static uint32
chunk_pick_rows(uint32 sel)
{
	uint32		v = sel >> 3;

	switch (sel & 7)
	{
		case 0:
			return 0;
		case 1:
			return 1;
		case 2:
		case 3:
			return v % 17;
		case 4:
		case 5:
			return v % 257;
		case 6:
			return v % (CHUNK_MAX_ROWS + 1);
		default:
			return (v % 64 + 1) * 8 + (v >> 6) % 3 - 1;
	}
}

/* Is row i NULL under the null pattern (mode, arg)? */
static bool
chunk_row_null(uint32 mode, uint32 arg, uint32 i, FuzzRng *rng)
{
	switch (mode % 6)
	{
		case 0:
			return false;
		case 1:
			return true;
		case 2:
			return rng_below(rng, 16) == 0;
		case 3:
			return rng_below(rng, 2) == 0;
		case 4:
			return rng_below(rng, 256) < arg;
		default:
			return i % (arg % 9 + 1) == 0;
	}
}

/* One non-null value of type t, or false when the arena is full. */
static bool
chunk_make_value(const ValueTypeInfo *t, FuzzReader *r, FuzzRng *rng,
				 Datum *value)
{
	uint8		b = chunk_byte(r, rng);
	uint8	   *p;
	size_t		n;
	size_t		k;

	if (t->typbyval)
	{
		uint64		v = b;

		for (k = 1; k < (size_t) t->typlen; k++)
			v |= (uint64) chunk_byte(r, rng) << (8 * k);
		switch (t->typlen)
		{
			case 1:
				*value = CharGetDatum((char) v);
				break;
			case 2:
				*value = Int16GetDatum((int16) v);
				break;
			case 4:
				*value = Int32GetDatum((int32) v);
				break;
			default:
				*value = Int64GetDatum((int64) v);
				break;
		}
		return true;
	}
	if (t->typlen > 0)
	{
		p = chunk_alloc(t->typlen);
		if (p == NULL)
			return false;
		chunk_fill(p, t->typlen, (uint32) b << 8 | chunk_byte(r, rng), r, rng);
		*value = PointerGetDatum(p);
		return true;
	}
	if (t->typlen == -1)
	{
		/*
		 * b picks the header the writer hands over: short, 4-byte with a
		 * payload that fits a short header (the encoder converts it), or
		 * 4-byte and long.
		 */
		uint32		fill = chunk_byte(r, rng);
		bool		short_header = b % 8 < 3;
		size_t		hdrsz = short_header ? VARHDRSZ_SHORT : VARHDRSZ;

		if (b % 8 < 6)
			n = chunk_byte(r, rng) % (VARATT_SHORT_MAX - VARHDRSZ_SHORT + 1);
		else
		{
			/* too long for a short header */
			n = VARATT_SHORT_MAX - VARHDRSZ_SHORT + 1;
			if (b & 0x80)
			{
				uint32		lo = chunk_byte(r, rng);

				n += (lo | chunk_byte(r, rng) << 8) % 4000;
			}
			else
				n += chunk_byte(r, rng) % 200;
		}
		p = chunk_alloc(hdrsz + n);
		if (p == NULL)
			return false;
		if (short_header)
			SET_VARSIZE_SHORT(p, hdrsz + n);
		else
			SET_VARSIZE(p, hdrsz + n);
		chunk_fill(p + hdrsz, n, fill, r, rng);
		*value = PointerGetDatum(p);
		return true;
	}
	/* cstring */
	if (b & 0x80)
	{
		uint32		lo = chunk_byte(r, rng);

		n = (lo | chunk_byte(r, rng) << 8) % 600;
	}
	else
		n = b % 40;
	p = chunk_alloc(n + 1);
	if (p == NULL)
		return false;
	chunk_fill(p, n, (uint32) chunk_byte(r, rng) << 8 | 2, r, rng);
	for (k = 0; k < n; k++)
		if (p[k] == 0)
			p[k] = 'x';
	p[n] = '\0';
	*value = PointerGetDatum(p);
	return true;
}

/* The length of the varlena at p, its payload and payload length. */
static size_t
chunk_varlena(const uint8 *p, const uint8 **payload, size_t *plen)
{
	varattrib_4b hdr;

	if (VARATT_IS_1B(p))
	{
		*payload = p + VARHDRSZ_SHORT;
		*plen = VARSIZE_1B(p) - VARHDRSZ_SHORT;
		return VARSIZE_1B(p);
	}
	memcpy(&hdr, p, VARHDRSZ);
	*payload = p + VARHDRSZ;
	*plen = VARSIZE_4B(&hdr) - VARHDRSZ;
	return VARSIZE_4B(&hdr);
}

/* Equal as values: varlenas by payload, whatever their header. */
static bool
chunk_values_equal(const ValueTypeInfo *t, Datum a, Datum b)
{
	const uint8 *pa = (const uint8 *) DatumGetPointer(a);
	const uint8 *pb = (const uint8 *) DatumGetPointer(b);

	if (t->typbyval)
		return a == b;
	if (t->typlen > 0)
		return memcmp(pa, pb, t->typlen) == 0;
	if (t->typlen == -1)
	{
		const uint8 *da,
				   *db;
		size_t		la,
					lb;

		chunk_varlena(pa, &da, &la);
		chunk_varlena(pb, &db, &lb);
		return la == lb && memcmp(da, db, la) == 0;
	}
	return strcmp((const char *) pa, (const char *) pb) == 0;
}

typedef const char *(*FrameDecodeRow) (const char *raw, uint32 rawlen,
									   const ValueTypeInfo *type,
									   uint32 expected_count, uint32 row,
									   Datum *value, bool *isnull);
typedef const char *(*FrameRowSpan) (const char *raw, uint32 rawlen,
									 const ValueTypeInfo *type,
									 uint32 expected_count, uint32 row,
									 uint32 *start, uint32 *len);
static void check_row_span(const char *name, FrameRowSpan span,
						   FrameDecodeRow decode_row, const ValueTypeInfo *t,
						   const uint8 *raw, size_t rawlen, uint32 expected,
						   uint32 row, Datum v, bool n, FuzzRng *rng);

/* value_decode_row without a walk, as a FrameDecodeRow. */
static const char *
plain_decode_row(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
				 uint32 expected, uint32 row, Datum *value, bool *isnull)
{
	return value_decode_row(raw, rawlen, type, expected, row, NULL, value,
							isnull);
}

/*
 * Decodes src (copied to a MAXALIGNed placement in graw) as a chunk of
 * expected rows into guarded values and isnull arrays, prefilled with
 * prefill; checks that nothing was written outside the arrays and the
 * input is unchanged.  The arrays are left in gb_dst and gb_dst2.
 */
static const char *
chunk_guarded_decode(GuardedBuffer *graw, const ValueTypeInfo *t,
					 const uint8 *src, size_t srclen, uint32 expected,
					 FuzzRng *rng, int prefill)
{
	uint8	   *raw = fuzz_place_copy_maxaligned(graw, src, srclen, rng_below(rng, 2));
	Datum	   *values = (Datum *) fuzz_place(&gb_dst, (size_t) expected * sizeof(Datum),
											  rng_below(rng, 2));
	bool	   *isnull = (bool *) fuzz_place(&gb_dst2, expected, rng_below(rng, 2));
	const char *err;
	ValueWalk	walk = {0};
	ValueWalk  *marks = calloc(VALUE_MARKS(expected), sizeof(ValueWalk));
	uint32		row = 0;

	FUZZ_CHECK(marks != NULL, "out of memory");
	FUZZ_CHECK((uintptr_t) raw % MAXIMUM_ALIGNOF == 0, "chunk placement is not MAXALIGNed");
	if (expected > 0)
	{
		memset(values, prefill, (size_t) expected * sizeof(Datum));
		memset(isnull, prefill, expected);
	}
	err = value_decode((const char *) raw, (uint32) srclen, t, expected,
					   values, isnull);
	fuzz_check_canaries(graw, "chunk");

	/*
	 * One row alone (a fetch by TID): in bounds, and as the whole decode.
	 * The same rows through one walk (a cursor's rows, mostly in order), and
	 * through the marks of every walk so far (a cached frame's rows, in any
	 * order): as each alone.
	 */
	for (int k = 0; k < 4 && expected > 0; k++)
	{
		Datum		v,
					wv;
		bool		n,
					wn;
		const char *rerr;
		const char *werr;

		row = k > 0 && rng_below(rng, 4) != 0 ?
			row + rng_below(rng, expected - row) : rng_below(rng, expected);
		rerr = value_decode_row((const char *) raw, (uint32) srclen, t,
								expected, row, NULL, &v, &n);
		werr = value_decode_row((const char *) raw, (uint32) srclen, t,
								expected, row, &walk, &wv, &wn);
		fuzz_check_canaries(graw, "chunk");
		FUZZ_CHECK((rerr == NULL) == (werr == NULL) &&
				   (rerr != NULL || (wn == n && (n || wv == v))),
				   "value_decode_row from a walk disagrees with it alone on row %u", row);
		werr = value_decode_row_marked((const char *) raw, (uint32) srclen, t,
									   expected, row, marks, &wv, &wn);
		fuzz_check_canaries(graw, "chunk");
		FUZZ_CHECK((rerr == NULL) == (werr == NULL) &&
				   (rerr != NULL || (wn == n && (n || wv == v))),
				   "value_decode_row_marked disagrees with value_decode_row on row %u", row);
		if (err == NULL)
		{
			FUZZ_CHECK(rerr == NULL, "value_decode accepted the chunk, value_decode_row refused row %u: %s",
					   row, rerr);
			FUZZ_CHECK(n == isnull[row] && (n || v == values[row]),
					   "value_decode_row disagrees with value_decode on row %u", row);
			if (value_spans_rows(t))
				check_row_span("value", value_row_span, plain_decode_row, t,
							   raw, srclen, expected, row, v, n, rng);
		}
	}
	fuzz_check_aligned_gap(graw, srclen, "chunk");
	fuzz_check_canaries(&gb_dst, "values");
	fuzz_check_canaries(&gb_dst2, "isnull");
	FUZZ_CHECK(srclen == 0 || memcmp(raw, src, srclen) == 0,
			   "value_decode modified its input");
	free(marks);
	return err;
}

/*
 * What value_decode promises when it accepts raw[0 .. rawlen) as count
 * rows (the arrays in gb_dst, gb_dst2): every flag written and 0 or 1, a
 * NULL's Datum 0, the header's counts honoured; every by-reference value
 * inside the buffer, after the previous one, whole and aligned as its
 * type says; no bytes left over after the last.
 */
static void
chunk_check_accepted(const ValueTypeInfo *t, ChunkTypeKind kind,
					 const uint8 *raw, size_t rawlen, uint32 count)
{
	const Datum *values = (const Datum *) gb_dst.ptr;
	const uint8 *flags = gb_dst2.ptr;
	const uint8 *end = raw + rawlen;
	const uint8 *next;
	uint32		hdr_count;
	uint32		hdr_nulls;
	uint32		nulls = 0;
	int			align = chunk_alignment(t->typalign);
	uint32		i;

	FUZZ_CHECK(rawlen >= VALUE_CHUNK_HEADER_SIZE, "accepted a %zu-byte chunk", rawlen);
	memcpy(&hdr_count, raw, sizeof(uint32));
	memcpy(&hdr_nulls, raw + sizeof(uint32), sizeof(uint32));
	FUZZ_CHECK(hdr_count == count, "accepted a chunk of %u rows as %u rows", hdr_count, count);
	next = raw + VALUE_CHUNK_HEADER_SIZE;
	if (hdr_nulls > 0)
		next += ((size_t) count + 7) / 8;
	FUZZ_CHECK(next <= end, "accepted a chunk shorter than its null bitmap");

	for (i = 0; i < count; i++)
	{
		const uint8 *p;
		size_t		size;

		FUZZ_CHECK(flags[i] <= 1, "isnull[%u] left unwritten (%u)", i, flags[i]);
		if (flags[i])
		{
			nulls++;
			FUZZ_CHECK(values[i] == (Datum) 0, "NULL row %u has a non-zero Datum", i);
			continue;
		}
		FUZZ_CHECK(kind != CHUNK_TYPE_BAD,
				   "accepted a value of a type with typlen %d, typbyval %d",
				   t->typlen, t->typbyval);
		if (t->typbyval)
		{
			Datum		v = values[i];

			FUZZ_CHECK((t->typlen == 1 && v == CharGetDatum(DatumGetChar(v))) ||
					   (t->typlen == 2 && v == Int16GetDatum(DatumGetInt16(v))) ||
					   (t->typlen == 4 && v == Int32GetDatum(DatumGetInt32(v))) ||
					   t->typlen == 8,
					   "row %u: Datum %llx is not a %d-byte value", i,
					   (unsigned long long) v, t->typlen);
			FUZZ_CHECK((size_t) t->typlen <= (size_t) (end - next),
					   "row %u: pass-by-value bytes past the end", i);
			next += t->typlen;
			continue;
		}
		p = (const uint8 *) DatumGetPointer(values[i]);
		FUZZ_CHECK(p >= next && p < end,
				   "row %u points %s the chunk (offset %td of %zu, previous value ends at %td)",
				   i, p < raw || p >= end ? "outside" : "before the end of the previous value in",
				   (ptrdiff_t) (p - raw), rawlen, (ptrdiff_t) (next - raw));
		FUZZ_CHECK(p - next < align, "row %u: %td bytes of padding before a value aligned to %d",
				   i, (ptrdiff_t) (p - next), align);
		if (t->typlen > 0)
		{
			size = t->typlen;
			FUZZ_CHECK((uintptr_t) p % align == 0, "row %u: misaligned value", i);
		}
		else if (t->typlen == -1)
		{
			if (VARATT_IS_1B(p))
			{
				FUZZ_CHECK(!VARATT_IS_1B_E(p), "row %u: external TOAST pointer accepted", i);
				size = VARSIZE_1B(p);
				FUZZ_CHECK(size >= VARHDRSZ_SHORT, "row %u: empty short header accepted", i);
			}
			else
			{
				varattrib_4b hdr;

				FUZZ_CHECK(end - p >= VARHDRSZ, "row %u: varlena header past the end", i);
				FUZZ_CHECK((uintptr_t) p % align == 0, "row %u: misaligned 4-byte varlena", i);
				memcpy(&hdr, p, VARHDRSZ);
				FUZZ_CHECK(!VARATT_IS_4B_C(&hdr), "row %u: compressed varlena accepted", i);
				size = VARSIZE_4B(&hdr);
				FUZZ_CHECK(size >= VARHDRSZ, "row %u: varlena shorter than its header", i);
			}
		}
		else
		{
			const uint8 *nul = memchr(p, '\0', end - p);

			FUZZ_CHECK(nul != NULL, "row %u: cstring without a terminator in the chunk", i);
			size = nul - p + 1;
		}
		FUZZ_CHECK(size <= (size_t) (end - p),
				   "row %u: %zu-byte value at offset %td runs past the %zu-byte chunk",
				   i, size, (ptrdiff_t) (p - raw), rawlen);
		next = p + size;
	}
	FUZZ_CHECK(nulls == hdr_nulls, "accepted %u NULLs, the header says %u", nulls, hdr_nulls);
	FUZZ_CHECK(next == end, "accepted a chunk with %td bytes after its last value",
			   (ptrdiff_t) (end - next));
}

/*
 * Encodes count rows (values, isnull) into a palloc'd buffer; returns its
 * data and sets *len.
 */
static char *
chunk_encode(const ValueTypeInfo *t, const Datum *values, const bool *isnull,
			 uint32 count, size_t *len)
{
	StringInfoData buf;

	initStringInfo(&buf);
	value_encode(&buf, t, values, isnull, count);
	*len = buf.len;
	return buf.data;
}

/*
 * An accepted decode of raw (rawlen bytes, count rows, placed in gb_src,
 * results in gb_dst/gb_dst2) is deterministic and fills every output; for
 * a definable type, re-encoding its values gives a chunk that decodes to
 * equal values and re-encodes to itself.
 */
static void
chunk_check_redecode(const ValueTypeInfo *t, ChunkTypeKind kind,
					 size_t rawlen, uint32 count, FuzzRng *rng)
{
	const uint8 *raw = gb_src.ptr;
	const char *err;
	char	   *enc;
	char	   *enc2;
	size_t		enclen;
	size_t		enc2len;
	uint32		i;

	memcpy(chunk_saved_values, gb_dst.ptr, (size_t) count * sizeof(Datum));
	memcpy(chunk_saved_isnull, gb_dst2.ptr, count);

	/* Same placement of the chunk, other prefill: the same results. */
	{
		Datum	   *values = (Datum *) fuzz_place(&gb_dst, (size_t) count * sizeof(Datum),
												  rng_below(rng, 2));
		bool	   *isnull = (bool *) fuzz_place(&gb_dst2, count, rng_below(rng, 2));

		if (count > 0)
		{
			memset(values, 0x5A, (size_t) count * sizeof(Datum));
			memset(isnull, 0x5A, count);
		}
		err = value_decode((const char *) raw, (uint32) rawlen, t, count, values, isnull);
		FUZZ_CHECK(err == NULL, "decode accepted once, then refused the same chunk: %s", err);
		fuzz_check_canaries(&gb_dst, "values");
		fuzz_check_canaries(&gb_dst2, "isnull");
		FUZZ_CHECK(count == 0 ||
				   (memcmp(values, chunk_saved_values, (size_t) count * sizeof(Datum)) == 0 &&
					memcmp(isnull, chunk_saved_isnull, count) == 0),
				   "decode is not deterministic or leaves outputs unwritten");
	}
	if (kind != CHUNK_TYPE_VALID)
		return;

	/* Re-encoded: equal values back, and a fixed point of the encoder. */
	enc = chunk_encode(t, chunk_saved_values, chunk_saved_isnull, count, &enclen);
	FUZZ_CHECK(enclen <= FUZZ_MAX_COMP, "re-encoded chunk of %zu bytes", enclen);
	err = chunk_guarded_decode(&gb_chunk2, t, (const uint8 *) enc, enclen, count, rng, 0xA5);
	FUZZ_CHECK(err == NULL, "re-encoded chunk refused: %s", err);
	chunk_check_accepted(t, kind, gb_chunk2.ptr, enclen, count);
	for (i = 0; i < count; i++)
	{
		bool		isnull = ((const bool *) gb_dst2.ptr)[i];

		FUZZ_CHECK(isnull == chunk_saved_isnull[i], "row %u: NULL flag changed on re-encoding", i);
		FUZZ_CHECK(isnull || chunk_values_equal(t, ((const Datum *) gb_dst.ptr)[i],
												 chunk_saved_values[i]),
				   "row %u: value changed on re-encoding", i);
	}
	enc2 = chunk_encode(t, (const Datum *) gb_dst.ptr, (const bool *) gb_dst2.ptr,
						count, &enc2len);
	FUZZ_CHECK(enc2len == enclen && memcmp(enc, enc2, enclen) == 0,
			   "encoding is not a fixed point (%zu bytes, then %zu)", enclen, enc2len);
	pfree(enc);
	pfree(enc2);
}

/*
 * Records where the structure of a valid chunk (raw, rawlen bytes, count
 * rows, decoded into gb_dst/gb_dst2) is: its header fields, its bitmap,
 * the start of each value and of the padding before it, and its end.
 */
static void
chunk_collect_bounds(const ValueTypeInfo *t, const uint8 *raw, size_t rawlen,
					 uint32 count)
{
	const Datum *values = (const Datum *) gb_dst.ptr;
	const bool *isnull = (const bool *) gb_dst2.ptr;
	uint32		nulls;
	size_t		off = VALUE_CHUNK_HEADER_SIZE;
	uint32		i;

	chunk_nbounds = 0;
	chunk_bounds[chunk_nbounds++] = 0;
	chunk_bounds[chunk_nbounds++] = sizeof(uint32);
	memcpy(&nulls, raw + sizeof(uint32), sizeof(uint32));
	if (nulls > 0)
	{
		chunk_bounds[chunk_nbounds++] = (uint32) off;
		off += ((size_t) count + 7) / 8;
	}
	for (i = 0; i < count && chunk_nbounds + 2 < CHUNK_MAX_BOUNDS; i++)
	{
		size_t		start;

		if (isnull[i])
			continue;
		start = t->typbyval ? off :
			(size_t) ((const uint8 *) DatumGetPointer(values[i]) - raw);
		if (start != off)
			chunk_bounds[chunk_nbounds++] = (uint32) off;
		chunk_bounds[chunk_nbounds++] = (uint32) start;
		if (t->typbyval || t->typlen > 0)
			off = start + t->typlen;
		else if (t->typlen == -1)
		{
			const uint8 *payload;
			size_t		plen;

			off = start + chunk_varlena(raw + start, &payload, &plen);
		}
		else
			off = start + strlen((const char *) raw + start) + 1;
	}
	chunk_bounds[chunk_nbounds++] = (uint32) rawlen;
}

/*
 * Mutations aimed at the layout, four input bytes each: at a boundary
 * chunk_collect_bounds found, flip a bit, write a byte a decoder tests
 * for (0, external, short header, 4-byte flags), delete or insert bytes
 * (moving what follows off or onto its alignment), change a 32-bit length
 * or count by a little, turn a short varlena header into an unaligned
 * 4-byte one or back, set a varlena header's flag bits, shrink a varlena
 * to a tiny (possibly impossible) size dropping its payload, or cut the
 * chunk there.
 */
static void
chunk_mutate_structured(FuzzReader *r, int n, uint8 *m, size_t *mlen)
{
	static const uint8 bytes[] = {0x00, 0x01, 0x02, 0x03, 0x10, 0x12, 0x80, 0xFE, 0xFF};
	int			k;

	for (k = 0; k < n; k++)
	{
		uint32		op = rd_u8(r);
		uint32		idx = rd_u16(r);
		uint32		arg = rd_u8(r);
		size_t		len = *mlen;
		size_t		pos = chunk_nbounds > 0 ? chunk_bounds[idx % chunk_nbounds] : 0;
		size_t		d = arg % 8 + 1;
		uint32		v;
		varattrib_4b vh;		/* a 4-byte varlena header, as the macros see it */

		pos = Min(pos, len);
		switch (op % 10)
		{
			case 0:				/* flip a bit at or just after it */
				if (pos + (arg >> 3) % 4 < len)
					m[pos + (arg >> 3) % 4] ^= (uint8) (1 << (arg & 7));
				break;
			case 1:				/* a byte the decoder tests for */
				if (pos < len)
					m[pos] = bytes[arg % lengthof(bytes)];
				break;
			case 2:				/* delete 1 to 8 bytes */
				d = Min(d, len - pos);
				memmove(m + pos, m + pos + d, len - pos - d);
				*mlen = len - d;
				break;
			case 3:				/* insert 1 to 8 zero (or arg) bytes */
				d = Min(d, (size_t) FUZZ_MAX_COMP - len);
				memmove(m + pos + d, m + pos, len - pos);
				memset(m + pos, (arg & 0x80) ? 0 : (int) arg, d);
				*mlen = len + d;
				break;
			case 4:				/* a 32-bit length or count, a little off */
				if (len - pos >= sizeof(uint32))
				{
					memcpy(&v, m + pos, sizeof(v));
					if (arg & 0x80)
						v += ((arg >> 1) % 9 - 4) << 2; /* a 4-byte varlena's size */
					else
						v += (arg >> 1) % 9 - 4;
					memcpy(m + pos, &v, sizeof(v));
				}
				break;
			case 5:				/* the header's counts, a little off */
				if (len >= VALUE_CHUNK_HEADER_SIZE)
				{
					size_t		field = (arg & 1) ? sizeof(uint32) : 0;

					memcpy(&v, m + field, sizeof(v));
					v += (arg >> 1) % 5 - 2;
					memcpy(m + field, &v, sizeof(v));
				}
				break;
			case 6:				/* short varlena header <-> 4-byte, in place */
				if (pos < len && VARATT_IS_1B(m + pos) && !VARATT_IS_1B_E(m + pos) &&
					len + 3 <= FUZZ_MAX_COMP)
				{
					memset(&vh, 0, sizeof(vh));
					SET_VARSIZE(&vh, VARSIZE_1B(m + pos) - VARHDRSZ_SHORT + VARHDRSZ);
					memmove(m + pos + 3, m + pos, len - pos);
					memcpy(m + pos, &vh, VARHDRSZ);
					*mlen = len + 3;
				}
				else if (len - pos >= VARHDRSZ)
				{
					memcpy(&vh, m + pos, VARHDRSZ);
					if (VARATT_IS_4B_U(&vh) && VARSIZE_4B(&vh) >= VARHDRSZ &&
						VARSIZE_4B(&vh) - VARHDRSZ + VARHDRSZ_SHORT <= VARATT_SHORT_MAX)
					{
						uint8		h;

						SET_VARSIZE_SHORT(&h, VARSIZE_4B(&vh) - VARHDRSZ + VARHDRSZ_SHORT);
						memmove(m + pos + 1, m + pos + VARHDRSZ, len - pos - VARHDRSZ);
						m[pos] = h;
						*mlen = len - 3;
					}
				}
				break;
			case 7:				/* a varlena header's flag bits */
				if (pos < len)
					m[pos] = (uint8) ((m[pos] & ~3) | (arg & 3));
				break;
			case 8:				/* shrink a varlena to 0..5 bytes */
				if (pos < len && VARATT_IS_1B(m + pos))
				{
					size_t		size = VARSIZE_1B(m + pos);
					size_t		ns = (arg >> 1) % 3;
					size_t		keep = Max(ns, (size_t) VARHDRSZ_SHORT);

					if (size >= keep && size <= len - pos)
					{
						SET_VARSIZE_1B(m + pos, ns);
						memmove(m + pos + keep, m + pos + size, len - pos - size);
						*mlen = len - (size - keep);
					}
				}
				else if (len - pos >= VARHDRSZ)
				{
					size_t		size;
					size_t		ns = (arg >> 1) % 6;
					size_t		keep = Max(ns, (size_t) VARHDRSZ);

					memcpy(&vh, m + pos, VARHDRSZ);
					size = VARSIZE_4B(&vh);
					if (size >= keep && size <= len - pos)
					{
						SET_VARSIZE_4B(&vh, ns);
						memcpy(m + pos, &vh, VARHDRSZ);
						memmove(m + pos + keep, m + pos + size, len - pos - size);
						*mlen = len - (size - keep);
					}
				}
				break;
			default:			/* cut there, or a few bytes on */
				*mlen = Min(len, pos + arg % 4);
				break;
		}
	}
}

/*
 * An expected_count: mostly the true one; else the one in the header m
 * (mlen bytes) when it is not too big, one near the true one, or any.
 */
static uint32
chunk_pick_expected(uint32 sel, uint32 truecount, const uint8 *m, size_t mlen)
{
	uint32		v = sel >> 4;

	switch (sel & 15)
	{
		case 12:
		case 13:
			if (mlen >= sizeof(uint32))
			{
				uint32		hdr;

				memcpy(&hdr, m, sizeof(hdr));
				if (hdr <= CHUNK_MAX_EXPECTED)
					return hdr;
			}
			return truecount;
		case 14:
			{
				int64		e = (int64) truecount + (int64) (v % 7) - 3;

				return (uint32) Max(Min(e, (int64) CHUNK_MAX_EXPECTED), 0);
			}
		case 15:
			return (v & 1) ? (v >> 1) % 64 : (v >> 1) % (CHUNK_MAX_EXPECTED + 1);
		default:
			return truecount;
	}
}

/*
 * Input layout: shape, fixed-length selector, 24 bits of row count
 * selector, null pattern and its argument, generic mutation count (used
 * when its top bit is set), structured mutation count, 32 bits of
 * expected_count selector, five bytes per generic and four per structured
 * mutation, then the bytes the values are made of (a generator seeded
 * from the input continues them).
 *
 * Builds count rows of the shape with the null pattern, encodes them with
 * value_encode and checks the round trip: the chunk decodes to the same
 * NULL flags and byte-equal values (varlenas keep their payload, with a
 * short header when it fits), re-encodes to the same bytes, and is refused
 * one byte shorter, one byte longer and at any other row count.  Then it
 * mutates the chunk (chunk_mutate_structured, then fuzz_mutate) and
 * decodes it with a chosen expected_count: nothing may crash or touch
 * memory outside the buffers, and an accepted chunk must satisfy
 * chunk_check_accepted and chunk_check_redecode.
 */
static void
fuzz_chunk_decode(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	const ChunkShape *shape = &chunk_shapes[rd_u8(&r) % CHUNK_BUILD_SHAPES];
	ValueTypeInfo t = chunk_type(shape, rd_u8(&r));
	uint32		rowsel = rd_u8(&r);
	uint32		nullmode;
	uint32		nullarg;
	int			nmut;
	int			nsmut;
	uint32		expsel;
	uint32		count;
	FuzzReader	mut;
	FuzzReader	smut;
	char	   *enc;
	size_t		enclen;
	size_t		mlen;
	uint32		expected;
	const char *err;
	uint32		i;

	rowsel |= rd_u16(&r) << 8;
	nullmode = rd_u8(&r);
	nullarg = rd_u8(&r);
	nmut = (int) rd_u8(&r);
	nmut = (nmut & 0x80) ? nmut % 9 : 0;
	nsmut = (int) (rd_u8(&r) % 5);
	expsel = rd_u32(&r);
	mut = r;
	r.p += Min(r.left, (size_t) nmut * 5);
	r.left -= Min(r.left, (size_t) nmut * 5);
	mut.left = Min(mut.left, (size_t) nmut * 5);
	smut = r;
	r.p += Min(r.left, (size_t) nsmut * 4);
	r.left -= Min(r.left, (size_t) nsmut * 4);
	smut.left = Min(smut.left, (size_t) nsmut * 4);
	rng_seed_from(&rng, data, len);

	/* The rows; a value the arena has no room for is NULL. */
	count = chunk_pick_rows(rowsel);
	chunk_arena_used = 0;
	for (i = 0; i < count; i++)
	{
		chunk_orig_values[i] = (Datum) 0;
		chunk_orig_isnull[i] = chunk_row_null(nullmode, nullarg, i, &rng) ||
			!chunk_make_value(&t, &r, &rng, &chunk_orig_values[i]);
	}

	enc = chunk_encode(&t, chunk_orig_values, chunk_orig_isnull, count, &enclen);
	FUZZ_CHECK(enclen <= FUZZ_MAX_COMP, "chunk of %zu bytes is too big for the harness", enclen);
	memcpy(scratch_comp, enc, enclen);
	pfree(enc);

	/* The round trip. */
	err = chunk_guarded_decode(&gb_src, &t, scratch_comp, enclen, count, &rng, 0xA5);
	FUZZ_CHECK(err == NULL, "%s: valid chunk of %u rows refused: %s", shape->name, count, err);
	chunk_check_accepted(&t, shape->kind, gb_src.ptr, enclen, count);
	for (i = 0; i < count; i++)
	{
		bool		isnull = ((const bool *) gb_dst2.ptr)[i];
		Datum		v = ((const Datum *) gb_dst.ptr)[i];

		FUZZ_CHECK(isnull == chunk_orig_isnull[i], "%s: row %u: NULL flag lost", shape->name, i);
		if (isnull)
			continue;
		FUZZ_CHECK(chunk_values_equal(&t, v, chunk_orig_values[i]),
				   "%s: row %u: value changed in the round trip", shape->name, i);
		if (t.typlen == -1)
		{
			const uint8 *orig = (const uint8 *) DatumGetPointer(chunk_orig_values[i]);
			bool		short_form = VARATT_IS_1B(orig) || VARATT_CAN_MAKE_SHORT(orig);

			FUZZ_CHECK(short_form == (bool) VARATT_IS_1B(DatumGetPointer(v)),
					   "%s: row %u: varlena came back with a %s header", shape->name, i,
					   short_form ? "4-byte" : "short");
		}
	}
	chunk_collect_bounds(&t, gb_src.ptr, enclen, count);
	chunk_check_redecode(&t, shape->kind, enclen, count, &rng);

	/* Exact: not one byte less, not one more, not another row count. */
	err = chunk_guarded_decode(&gb_src, &t, scratch_comp, enclen - 1, count, &rng, 0xA5);
	FUZZ_CHECK(err != NULL, "%s: chunk accepted without its last byte", shape->name);
	memcpy(scratch_ext, scratch_comp, enclen);
	scratch_ext[enclen] = (uint8) rng_next(&rng);
	err = chunk_guarded_decode(&gb_src, &t, scratch_ext, enclen + 1, count, &rng, 0xA5);
	FUZZ_CHECK(err != NULL, "%s: chunk accepted with a byte appended", shape->name);
	expected = chunk_pick_expected(expsel | 14, count, NULL, 0);
	if (expected != count)
	{
		err = chunk_guarded_decode(&gb_src, &t, scratch_comp, enclen, expected, &rng, 0xA5);
		FUZZ_CHECK(err != NULL, "%s: chunk of %u rows accepted as %u rows",
				   shape->name, count, expected);
	}
	stat_roundtrips++;

	if (nmut == 0 && nsmut == 0)
		return;

	/* Mutants: aimed at the structure first, then anywhere. */
	memcpy(scratch_mut, scratch_comp, enclen);
	mlen = enclen;
	chunk_mutate_structured(&smut, nsmut, scratch_mut, &mlen);
	fuzz_mutate(&mut, nmut, scratch_mut, &mlen, scratch_comp, enclen,
				chunk_arena, chunk_arena_used);
	expected = chunk_pick_expected(expsel, count, scratch_mut, mlen);
	stat_mutants++;
	err = chunk_guarded_decode(&gb_src, &t, scratch_mut, mlen, expected, &rng, 0xA5);
	if (err == NULL)
	{
		if (mlen != enclen || memcmp(scratch_mut, scratch_comp, enclen) != 0)
			stat_mutants_accepted++;
		chunk_check_accepted(&t, shape->kind, gb_src.ptr, mlen, expected);
		chunk_check_redecode(&t, shape->kind, mlen, expected, &rng);
	}
}

/*
 * Input layout: shape (any, including types the decoder must refuse
 * values of), fixed-length selector, mode, 32 bits of expected_count
 * selector, then the chunk's bytes as they are, except that modes 1 and 2
 * write a small row count and a NULL count (mode 2: none) into the header
 * so decoding gets past it.  Mode 0 expects the header's row count when
 * it is small, mode 3 a chosen one.  An accepted chunk must satisfy
 * chunk_check_accepted and chunk_check_redecode.
 */
static void
fuzz_chunk_raw(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	const ChunkShape *shape = &chunk_shapes[rd_u8(&r) % lengthof(chunk_shapes)];
	ValueTypeInfo t = chunk_type(shape, rd_u8(&r));
	uint32		mode = rd_u8(&r) % 4;
	uint32		sel = rd_u32(&r);
	size_t		rawlen = Min(r.left, (size_t) FUZZ_MAX_COMP);
	uint32		expected;
	const char *err;

	rng_seed_from(&rng, data, len);
	memcpy(scratch_mut, r.p, rawlen);
	if (mode == 0)
		expected = chunk_pick_expected(12, sel % 64, scratch_mut, rawlen);
	else if (mode == 3 || rawlen < VALUE_CHUNK_HEADER_SIZE)
		expected = chunk_pick_expected(sel, (sel >> 16) % 300, scratch_mut, rawlen);
	else
	{
		uint32		count = (sel >> 8) % 300;
		uint32		nulls = 0;

		/* Mode 1: some or all rows NULL; mode 2: none, so no bitmap. */
		if (mode == 1)
			nulls = (sel & 1) ? count : (sel >> 1) % (count + 1);
		memcpy(scratch_mut, &count, sizeof(uint32));
		memcpy(scratch_mut + sizeof(uint32), &nulls, sizeof(uint32));
		expected = count;
	}
	stat_mutants++;
	err = chunk_guarded_decode(&gb_src, &t, scratch_mut, rawlen, expected, &rng, 0xA5);
	if (err == NULL)
	{
		stat_mutants_accepted++;
		chunk_check_accepted(&t, shape->kind, gb_src.ptr, rawlen, expected);
		chunk_check_redecode(&t, shape->kind, rawlen, expected, &rng);
	}
}

/* ----------------------------------------------------------------
 * frames.*: framed units (src/codec/frames.c)
 * ----------------------------------------------------------------
 */
#define FRAMES_MAX_ROWS		300
#define FRAMES_MAX_RAW		(64 * 1024)

static FrameEntry frames_entries[FRAMES_MAX_ROWS];
static uint64 frames_offsets[FRAMES_MAX_ROWS];

/*
 * Reads a unit as a fetch does: count, directory, then every frame (CRC
 * checked) into a guarded buffer.  When orig is given the unit is the one
 * built from orig's frames and must read back exactly.
 */
static void
frames_read_unit(const uint8 *unit, size_t len, uint32 rows, uint64 raw_total,
				 const Codec *codec, const uint8 *orig, bool at_end)
{
	const uint8 *p = fuzz_place_copy(&gb_src, unit, len, at_end);
	uint32		n;
	const char *err;
	uint64		raw_off = 0;
	uint32		i;
	uint32		row;

	err = frames_count((const char *) p, len, rows, &n);
	if (err == NULL)
		err = frames_directory((const char *) p + sizeof(uint32), n, len, rows,
							   raw_total, frames_entries, frames_offsets);
	fuzz_check_canaries(&gb_src, "unit");
	if (orig != NULL)
		FUZZ_CHECK(err == NULL, "built unit refused: %s", err);
	if (err != NULL)
		return;

	/* an accepted directory tiles the rows and the unit */
	for (i = 0; i < n; i++)
	{
		FUZZ_CHECK(i == 0 ? frames_entries[i].first_row == 0 :
				   frames_entries[i].first_row > frames_entries[i - 1].first_row,
				   "frame %u does not start after the previous one", i);
		FUZZ_CHECK(frames_offsets[i] + frames_entries[i].stored_length <= len,
				   "frame %u runs past the unit", i);
	}
	for (row = 0; row < rows; row++)
	{
		uint32		f = frames_find(frames_entries, n, row);

		FUZZ_CHECK(frames_entries[f].first_row <= row &&
				   row - frames_entries[f].first_row < frames_rows(frames_entries, n, f, rows),
				   "row %u found in frame %u, which does not hold it", row, f);
	}

	for (i = 0; i < n; i++)
	{
		const FrameEntry *e = &frames_entries[i];
		uint8	   *out;

		FUZZ_CHECK(e->raw_length <= raw_total, "frame longer than the unit");
		out = fuzz_place(&gb_dst, e->raw_length, !at_end);
		err = frames_decode(e, (const char *) p + frames_offsets[i], codec,
							NULL, true, (char *) out);
		fuzz_check_canaries(&gb_dst, "frame");
		fuzz_check_canaries(&gb_src, "unit");
		if (orig != NULL)
		{
			FUZZ_CHECK(err == NULL, "frame %u of a built unit refused: %s", i, err);
			FUZZ_CHECK(memcmp(out, orig + raw_off, e->raw_length) == 0,
					   "frame %u does not read back", i);
		}
		raw_off += e->raw_length;
	}
}

/*
 * Input layout: codec selector, row count, then per frame a row count,
 * a length and a fill byte (frames mix input bytes with runs, so codecs
 * both compress and give up), then mutation counts and mutations.
 */
static void
fuzz_frames_decode(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	const Codec *codec = codec_by_id((int) (rd_u8(&r) % CODEC_COUNT));
	uint32		rows = 1 + rd_u16(&r) % FRAMES_MAX_ROWS;
	FrameWriter fw;
	StringInfoData unit;
	uint32		first = 0;
	size_t		raw_used = 0;
	size_t		mlen;
	int			nstruct;
	int			nmut;
	int			i;

	rng_seed_from(&rng, data, len);
	if (codec == NULL || !codec->available)
		codec = codec_by_id(CODEC_NONE);
	frames_begin(&fw, codec, 0, NULL);
	while (first < rows)
	{
		uint32		n = 1 + rd_u8(&r) % (rows - first);
		size_t		rawlen = 1 + rd_u16(&r) % 2048;
		uint32		fill = rd_u8(&r);
		size_t		k;

		if (raw_used + rawlen > FRAMES_MAX_RAW)
			rawlen = 1;
		for (k = 0; k < rawlen; k++)
			scratch_input[raw_used + k] = (k % 8 == 0) ? (uint8) rd_u8(&r) : (uint8) fill;
		frames_add(&fw, first, (const char *) scratch_input + raw_used, (uint32) rawlen);
		raw_used += rawlen;
		first += n;
	}
	initStringInfo(&unit);
	frames_finish(&fw, &unit);
	frames_read_unit((const uint8 *) unit.data, unit.len, rows, raw_used,
					 codec, scratch_input, rng_next(&rng) & 1);

	/* Mutants: the count and directory entries first, then anywhere. */
	memcpy(scratch_mut, unit.data, unit.len);
	mlen = unit.len;
	nstruct = rd_u8(&r) % 4;
	for (i = 0; i < nstruct; i++)
	{
		uint32		nfields = 1 + 4 * fw.nframes;
		uint32		field = rd_u16(&r) % nfields;
		uint32		old;
		uint32		v;

		memcpy(&old, scratch_mut + field * sizeof(uint32), sizeof(uint32));
		switch (rd_u8(&r) % 6)
		{
			case 0:
				v = old + 1;
				break;
			case 1:
				v = old - 1;
				break;
			case 2:
				v = rows;
				break;
			case 3:
				v = (uint32) mlen;
				break;
			case 4:
				v = PG_UINT32_MAX;
				break;
			default:
				v = rd_u32(&r);
				break;
		}
		memcpy(scratch_mut + field * sizeof(uint32), &v, sizeof(uint32));
	}
	nmut = rd_u8(&r) % 4;
	fuzz_mutate(&r, nmut, scratch_mut, &mlen, (const uint8 *) unit.data,
				unit.len, scratch_input, raw_used);
	stat_mutants++;
	frames_read_unit(scratch_mut, mlen, rows, raw_used, codec, NULL,
					 rng_next(&rng) & 1);
	pfree(unit.data);
}


/* ----------------------------------------------------------------
 * zstd.dict: shared dictionaries (codec.h dict_*)
 *
 * Input layout: a sample-length selector and dictionary capacity, then
 * the payload cut into samples.  A dictionary trained on them must round
 * trip every sample; then the stored dictionary bytes are mutated (they
 * come from disk: loading them must refuse or give a dictionary that
 * decodes without touching memory outside the buffers), and so is a frame
 * compressed with the valid dictionary.
 * ---------------------------------------------------------------- */
#define DICT_FUZZ_MAX_SAMPLES	512

static void
fuzz_zstd_dict(const uint8 *data, size_t len)
{
	const Codec *c = codec_by_id(CODEC_ZSTD);
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	uint32		sample_len = 16 + rd_u8(&r) * 4;
	int32		dictcap = 1024 + (int32) (rd_u8(&r) % 16) * 1024;
	int			nmut = (int) (rd_u8(&r) % 6);
	FuzzReader	mut = r;
	size_t		sizes[DICT_FUZZ_MAX_SAMPLES];
	size_t		offsets[DICT_FUZZ_MAX_SAMPLES];
	uint32		nsamples = 0;
	size_t		inlen;
	size_t		off = 0;
	char	   *dict = palloc(dictcap);
	int32		dictlen;
	size_t		cws;
	size_t		dws;
	const CodecDict *cdict;
	const CodecDict *ddict;
	void	   *cwork;
	void	   *dwork;
	char	   *dict_copy;
	uint32		i;
	size_t		mlen;

	rng_seed_from(&rng, data, len);
	r.p += Min(r.left, (size_t) nmut * 5);
	r.left -= Min(r.left, (size_t) nmut * 5);
	mut.left = Min(mut.left, (size_t) nmut * 5);

	/* samples: the payload repeated with small changes, as column frames are */
	inlen = Min(r.left, (size_t) 32 * 1024);
	while (nsamples < DICT_FUZZ_MAX_SAMPLES && off + sample_len <= FUZZ_MAX_INPUT &&
		   off < 64 * 1024)
	{
		size_t		k;

		for (k = 0; k < sample_len; k++)
			scratch_input[off + k] = inlen > 0 ?
				r.p[(off + k) % inlen] ^ (uint8) ((k % 97 == 0) ? rng_next(&rng) : 0) :
				(uint8) (k * 7);
		offsets[nsamples] = off;
		sizes[nsamples++] = sample_len;
		off += sample_len;
	}

	dictlen = c->dict_train((const char *) scratch_input, sizes, nsamples,
							dict, dictcap, 3);
	if (dictlen < 0)
	{
		pfree(dict);
		return;
	}
	FUZZ_CHECK(dictlen > 0 && dictlen <= dictcap, "trained dictionary of %d bytes for capacity %d",
			   dictlen, dictcap);
	cws = c->dict_workspace(dictlen, true, 3);
	dws = c->dict_workspace(dictlen, false, 0);
	FUZZ_CHECK(cws > 0 && dws > 0, "no workspace size for a trained dictionary");
	cwork = palloc(cws);
	dwork = palloc(dws);
	cdict = c->dict_load(dict, dictlen, true, 3, cwork, cws);
	ddict = c->dict_load(dict, dictlen, false, 0, dwork, dws);
	FUZZ_CHECK(cdict != NULL && ddict != NULL, "a trained dictionary does not load");

	/* every sample round trips, odd ones with raw literals */
	for (i = 0; i < nsamples; i++)
	{
		const char *src = (const char *) scratch_input + offsets[i];
		int32		cap = c->bound((int32) sizes[i]);
		int32		clen = c->compress_dict(src, (int32) sizes[i],
											(char *) scratch_comp, cap, cdict,
											(i & 1) != 0);
		uint8	   *in;
		uint8	   *out;
		bool		ok;

		if (clen < 0)
			continue;
		FUZZ_CHECK((size_t) clen < sizes[i], "compressed sample not smaller");
		in = fuzz_place_copy(&gb_src, scratch_comp, clen, true);
		out = fuzz_place(&gb_dst, sizes[i], rng_next(&rng) & 1);
		ok = c->decompress_dict((const char *) in, clen, (char *) out,
								(int32) sizes[i], ddict);
		fuzz_check_canaries(&gb_dst, "output");
		FUZZ_CHECK(ok && memcmp(out, src, sizes[i]) == 0,
				   "sample %u does not round trip through the dictionary", i);

		/* the wrong length is refused */
		out = fuzz_place(&gb_dst, sizes[i] - 1, true);
		FUZZ_CHECK(!c->decompress_dict((const char *) in, clen, (char *) out,
									   (int32) sizes[i] - 1, ddict),
				   "sample %u decoded into one byte less", i);
		fuzz_check_canaries(&gb_dst, "output");

		/* a mutated frame: refused or decoded in bounds */
		if (i == 0 && nmut > 0)
		{
			FuzzReader	m2 = mut;

			memcpy(scratch_mut, scratch_comp, clen);
			mlen = clen;
			fuzz_mutate(&m2, nmut, scratch_mut, &mlen, scratch_comp, clen,
						(const uint8 *) src, sizes[i]);
			in = fuzz_place_copy(&gb_src, scratch_mut, mlen, true);
			out = fuzz_place(&gb_dst, sizes[i], true);
			(void) c->decompress_dict((const char *) in, (int32) mlen,
									  (char *) out, (int32) sizes[i], ddict);
			fuzz_check_canaries(&gb_dst, "output");
			stat_mutants++;
		}
	}

	/* a mutated dictionary, as read from a damaged disk */
	if (nmut > 0)
	{
		int32		clen;
		const CodecDict *bad;
		uint8	   *dbytes;
		size_t		bws;

		memcpy(scratch_mut, dict, dictlen);
		mlen = dictlen;
		fuzz_mutate(&mut, nmut, scratch_mut, &mlen, (const uint8 *) dict,
					dictlen, scratch_input, Min(off, (size_t) 4096));
		stat_mutants++;
		if (mlen == 0 || mlen > FRAMES_DICT_MAX_LENGTH)
		{
			pfree(cwork);
			pfree(dwork);
			pfree(dict);
			return;
		}
		bws = c->dict_workspace((int32) mlen, false, 0);
		dbytes = fuzz_place_copy(&gb_dst2, scratch_mut, mlen, true);
		dict_copy = palloc(bws);
		bad = c->dict_load((const char *) dbytes, (int32) mlen, false, 0,
						   dict_copy, bws);
		if (bad != NULL && nsamples > 0)
		{
			uint8	   *in;
			uint8	   *out;

			stat_mutants_accepted++;
			clen = c->compress_dict((const char *) scratch_input, (int32) sizes[0],
									(char *) scratch_comp,
									c->bound((int32) sizes[0]), cdict, false);
			if (clen > 0)
			{
				in = fuzz_place_copy(&gb_src, scratch_comp, clen, true);
				out = fuzz_place(&gb_dst, sizes[0], false);
				(void) c->decompress_dict((const char *) in, clen, (char *) out,
										  (int32) sizes[0], bad);
				fuzz_check_canaries(&gb_dst, "output");
			}
		}
		pfree(dict_copy);
	}
	pfree(cwork);
	pfree(dwork);
	pfree(dict);
}

/* ----------------------------------------------------------------
 * numeric.scaled: numeric_to_scaled (src/codec/numeric_format.c) reads
 * stored numerics, which come from disk, as scaled integers for the
 * aggregate kernels.  Inputs are numerics built from the input (short
 * and long forms, NaN and infinities, digits out of range, lengths cut
 * or extended, 1- and 4-byte varlena headers) or raw bytes.  Properties:
 * no read outside the value; an accepted value's mantissa and scale are
 * exact (checked against decimal arithmetic on the digits); a canonical
 * value of at most 18 digits and scale 18 is accepted.
 * ----------------------------------------------------------------
 */
#define NUMERIC_REF_DIGITS 200

/* ref[] (little-endian decimal digits) += d x 10^e */
static void
numeric_ref_add(uint8 *ref, uint32 d, int e)
{
	int			carry = 0;
	int			k;

	for (k = e; k < NUMERIC_REF_DIGITS && (d > 0 || carry > 0); k++)
	{
		int			sum = ref[k] + (int) (d % 10) + carry;

		ref[k] = (uint8) (sum % 10);
		carry = sum / 10;
		d /= 10;
	}
}

/* The decimal digits of |v|, little-endian, into out[]; the count. */
static int
numeric_int128_digits(int128 v, uint8 *out)
{
	uint128		m = v < 0 ? -(uint128) v : (uint128) v;
	int			n = 0;

	while (m > 0)
	{
		out[n++] = (uint8) (m % 10);
		m /= 10;
	}
	return n;
}

static void
fuzz_numeric_scaled(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	uint32		form = rd_u8(&r) % 5;
	bool		one_byte_header = (rd_u8(&r) & 1) != 0;
	bool		negative = (rd_u8(&r) & 1) != 0;
	uint8		payload[64];
	size_t		plen = 0;
	uint8		value[72];
	size_t		vlen;
	uint8	   *placed;
	int			dscale = 0;
	int			weight = 0;
	int			ndigits = 0;
	int			digits[16];
	bool		digits_valid = true;
	bool		cut = false;
	int128		mantissa = 0;
	int			scale = -1;
	bool		accepted;
	int			i;

	if (form == 4)
	{
		/* raw bytes */
		plen = rd_u8(&r) % 40;
		for (i = 0; i < (int) plen; i++)
			payload[i] = (uint8) rd_u8(&r);
	}
	else
	{
		uint16		header;

		dscale = (rd_u8(&r) & 0x80) ? (int) (rd_u16(&r) & 0x3FFF) : (int) (rd_u8(&r) % 45);
		weight = (int) (rd_u8(&r) % 41) - 20;
		ndigits = (int) (rd_u8(&r) % 12);
		for (i = 0; i < ndigits; i++)
		{
			uint32		raw = rd_u16(&r);

			digits[i] = (rd_u8(&r) % 16 == 0) ? (int) (int16) raw : (int) (raw % 10000);
			if (digits[i] < 0 || digits[i] >= 10000)
				digits_valid = false;
		}
		if (form == 0)
		{
			/* short form: 6-bit scale, 7-bit signed weight */
			dscale %= 64;
			weight = Max(Min(weight, 63), -64);
			header = 0x8000 | (negative ? 0x2000 : 0) | (uint16) (dscale << 7) |
				(weight < 0 ? 0x40 : 0) | (uint16) (weight & 0x3F);
			memcpy(payload, &header, 2);
			plen = 2;
		}
		else if (form == 1)
		{
			int16		w = (int16) weight;

			header = (negative ? 0x4000 : 0) | (uint16) dscale;
			memcpy(payload, &header, 2);
			memcpy(payload + 2, &w, 2);
			plen = 4;
		}
		else
		{
			/* NaN, +Inf, -Inf: special */
			header = (uint16) (0xC000 | (form == 2 ? 0 : form == 3 ? 0x1000 : 0x3000));
			memcpy(payload, &header, 2);
			plen = 2;
		}
		for (i = 0; i < ndigits; i++)
		{
			int16		d = (int16) digits[i];

			memcpy(payload + plen, &d, 2);
			plen += 2;
		}
		switch (rd_u8(&r) % 8)
		{
			case 0:
				if (plen > 0)
					plen--;		/* cut */
				cut = true;
				break;
			case 1:
				payload[plen++] = (uint8) rd_u8(&r);	/* extended */
				cut = true;
				break;
			default:
				break;
		}
	}

	/* the varlena: 1-byte header where it fits, else 4 bytes */
	if (one_byte_header && plen + 1 <= 127)
	{
		SET_VARSIZE_SHORT(value, plen + 1);
		memcpy(value + 1, payload, plen);
		vlen = plen + 1;
		placed = fuzz_place_copy(&gb_src, value, vlen, (rd_u8(&r) & 1) != 0);
	}
	else
	{
		SET_VARSIZE(value, plen + VARHDRSZ);
		memcpy(value + VARHDRSZ, payload, plen);
		vlen = plen + VARHDRSZ;
		placed = fuzz_place_copy_maxaligned(&gb_src, value, vlen,
											(rd_u8(&r) & 1) != 0);
	}

	accepted = numeric_to_scaled(PointerGetDatum(placed), &mantissa, &scale);
	fuzz_check_canaries(&gb_src, "numeric");
	if (form == 4 || cut)
		return;					/* only memory safety for these */

	FUZZ_CHECK(!accepted || (form <= 1 && digits_valid),
			   "%s: accepted a special value or a digit out of range", cur_target);
	if (form > 1 || !digits_valid)
		return;

	/* the exact value x 10^dscale, if it is an integer */
	{
		uint8		ref[NUMERIC_REF_DIGITS];
		uint8		got[NUMERIC_REF_DIGITS];
		bool		exact = true;
		int			nref = 0;
		int			ngot;

		memset(ref, 0, sizeof(ref));
		for (i = 0; i < ndigits; i++)
		{
			int			e = 4 * (weight - i) + dscale;
			uint32		d = (uint32) digits[i];

			for (; e < 0 && d > 0; e++)
			{
				if (d % 10 != 0)
					exact = false;
				d /= 10;
			}
			if (d > 0 && e < NUMERIC_REF_DIGITS - 8)
				numeric_ref_add(ref, d, Max(e, 0));
			else if (d > 0)
				exact = false;	/* far too large: never accepted */
		}
		for (i = 0; i < NUMERIC_REF_DIGITS; i++)
			if (ref[i] != 0)
				nref = i + 1;

		if (accepted)
		{
			FUZZ_CHECK(exact, "%s: accepted a value with digits past its scale",
					   cur_target);
			FUZZ_CHECK(scale == dscale, "%s: scale %d, stored %d", cur_target,
					   scale, dscale);
			ngot = numeric_int128_digits(mantissa, got);
			FUZZ_CHECK(ngot == nref && memcmp(got, ref, nref) == 0,
					   "%s: mantissa differs from the value's digits", cur_target);
			FUZZ_CHECK(nref == 0 || (mantissa < 0) == negative,
					   "%s: sign lost", cur_target);
		}
		else
			FUZZ_CHECK(!(exact && nref <= 18 && dscale <= 18 && ndigits <= 4),
					   "%s: refused a %d-digit value of scale %d", cur_target,
					   nref, dscale);
	}
}

/* Every target; see "HOW TO ADD A TARGET" at the top of the file. */
/* ----------------------------------------------------------------
 * distinct.merge: the sets of count(DISTINCT) (src/vector/agg_distinct.c)
 * that participants of a parallel aggregation export and the leader
 * merges, as arrays or as bitmaps of dense ranges.  Up to four
 * participants' sets are built from the input, each from runs of values
 * around bases chosen to hit every shape (dense, far apart, negative, at
 * the ends of int64, sparse, too few for a bitmap); the leader merges
 * their exports in an input-chosen order into a set that may already hold
 * values of its own, and its export is merged again into a fresh set.
 * Properties: every count equals the reference (sorted values, counted
 * once each); a merge accepts every export; an export cut, extended or
 * mutated is refused or merged without a read outside it.
 * ----------------------------------------------------------------
 */
#define DISTINCT_MAX_VALUES 6000

static int
int64_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

static int64
distinct_reference(int64 *values, int n)
{
	int64		count = 0;
	int			i;

	qsort(values, n, sizeof(int64), int64_cmp);
	for (i = 0; i < n; i++)
		if (i == 0 || values[i] != values[i - 1])
			count++;
	return count;
}

static void
distinct_free(DistinctSet *set)
{
	if (set->slots != NULL)
	{
		pfree(set->slots);
		pfree(set->used);
	}
	if (set->bits != NULL)
		pfree(set->bits);
	memset(set, 0, sizeof(*set));
}

/* Adds a run of values drawn from the input to set and to all[]. */
static void
distinct_add_run(FuzzReader *r, DistinctSet *set, int64 *all, int *nall)
{
	static const int64 bases[] = {0, -5000, INT64CONST(1000000000),
		PG_INT64_MAX - 40, PG_INT64_MIN, PG_INT64_MIN + 70, -64, 63};
	uint32		shape = rd_u8(r);
	int64		base = bases[shape % lengthof(bases)];
	uint32		n = rd_u16(r) % 1200;
	uint32		spread = 1 + rd_u8(r) % 4;
	uint32		i;

	if (shape & 0x80)
		base = (int64) (((uint64) rd_u32(r) << 32) | rd_u32(r));
	for (i = 0; i < n && *nall < DISTINCT_MAX_VALUES; i++)
	{
		/* the run's values wrap around within int64 */
		int64		v = (int64) ((uint64) base + (uint64) (i * spread) % 4000);

		if (shape & 0x40)
			v = (int64) ((uint64) v ^ ((uint64) rd_u16(r) << 40));
		distinct_set_add(set, (Datum) v);
		all[(*nall)++] = v;
	}
}

static void
fuzz_distinct_merge(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	int			nparts = 1 + rd_u8(&r) % 4;
	DistinctSet parts[4];
	DistinctSet leader;
	DistinctSet again;
	bytea	   *exports[4];
	bytea	   *leader_export;
	int64	   *all = palloc(sizeof(int64) * DISTINCT_MAX_VALUES);
	int64	   *own = palloc(sizeof(int64) * DISTINCT_MAX_VALUES);
	int			nall = 0;
	int			p;
	int			k;

	memset(parts, 0, sizeof(parts));
	memset(&leader, 0, sizeof(leader));
	memset(&again, 0, sizeof(again));
	for (p = 0; p < nparts; p++)
	{
		int			first = nall;
		int			runs = 1 + rd_u8(&r) % 3;

		for (k = 0; k < runs; k++)
			distinct_add_run(&r, &parts[p], all, &nall);
		memcpy(own, all + first, sizeof(int64) * (nall - first));
		FUZZ_CHECK(distinct_set_count(&parts[p]) ==
				   distinct_reference(own, nall - first),
				   "participant %d counts %lld values", p,
				   (long long) distinct_set_count(&parts[p]));
		exports[p] = distinct_set_export(&parts[p]);
	}
	/* values the leader's set holds before the merges */
	if (rd_u8(&r) & 1)
		distinct_add_run(&r, &leader, all, &nall);
	for (k = 0; k < nparts; k++)
	{
		/* an input-chosen order: rotate by a byte */
		bytea	   *e = exports[(k + rd_u8(&r)) % nparts];

		FUZZ_CHECK(distinct_set_merge(&leader, VARDATA(e), VARSIZE(e) - VARHDRSZ),
				   "an export was refused");
	}
	{
		int64		expected = distinct_reference(all, nall);

		/* exports were merged in some order, possibly twice: still a union */
		for (k = 0; k < nparts; k++)
			FUZZ_CHECK(distinct_set_merge(&leader, VARDATA(exports[k]),
										  VARSIZE(exports[k]) - VARHDRSZ),
					   "an export was refused");
		FUZZ_CHECK(distinct_set_count(&leader) == expected,
				   "merged count %lld, expected %lld",
				   (long long) distinct_set_count(&leader), (long long) expected);
		leader_export = distinct_set_export(&leader);
		FUZZ_CHECK(distinct_set_merge(&again, VARDATA(leader_export),
									  VARSIZE(leader_export) - VARHDRSZ),
				   "the leader's export was refused");
		FUZZ_CHECK(distinct_set_count(&again) == expected,
				   "re-merged count %lld, expected %lld",
				   (long long) distinct_set_count(&again), (long long) expected);
	}

	/* damaged exports: refused, or merged without reading outside them */
	{
		bytea	   *e = exports[rd_u8(&r) % nparts];
		size_t		elen = VARSIZE(e) - VARHDRSZ;
		size_t		mlen = Min(elen + (rd_u8(&r) % 17), (size_t) FUZZ_MAX_COMP);
		uint8	   *placed;
		DistinctSet damaged;

		memset(&damaged, 0, sizeof(damaged));
		memcpy(scratch_mut, VARDATA(e), Min(elen, mlen));
		if (mlen > elen)
			memset(scratch_mut + elen, rd_u8(&r), mlen - elen);
		fuzz_mutate(&r, 1 + rd_u8(&r) % 4, scratch_mut, &mlen,
					(const uint8 *) VARDATA(e), elen, NULL, 0);
		placed = fuzz_place_copy(&gb_src, scratch_mut, mlen, (rd_u8(&r) & 1) != 0);
		(void) distinct_set_merge(&damaged, (const char *) placed, mlen);
		fuzz_check_canaries(&gb_src, "damaged DISTINCT export");
		distinct_free(&damaged);
	}

	for (p = 0; p < nparts; p++)
	{
		distinct_free(&parts[p]);
		pfree(exports[p]);
	}
	distinct_free(&leader);
	distinct_free(&again);
	pfree(leader_export);
	pfree(all);
	pfree(own);
}

/*
 * dict.decode.  Input layout: shape (one of the by-reference shapes
 * chunk.decode builds), fixed-length selector, 24 bits of row count
 * selector, null pattern and its argument, pool size, mutation count,
 * five bytes per mutation, then the bytes the values are made of.
 *
 * Rows are drawn from a pool of up to 300 values, so frames of 0 to 256
 * distinct values and frames the encoder must refuse both occur.
 * dict_encode must accept exactly the frames dict_count_distinct counts at
 * most DICT_MAX_ENTRIES values in, leaving the buffer untouched otherwise;
 * an encoded frame must decode, whole and row by row, to the rows, and be
 * refused one byte shorter or longer.  Then a mutant of it is decoded in
 * guarded buffers: no crash, no access outside them, and when accepted,
 * every row decoded alone as in the whole decode.
 */
/*
 * A frame encoding's two decoders, whole and row by row, as dict_decode and
 * dict_decode_row take their arguments.
 */
typedef const char *(*FrameDecode) (const char *raw, uint32 rawlen,
									const ValueTypeInfo *type,
									uint32 expected_count, Datum *values,
									bool *isnull);

typedef struct FrameEncoding
{
	const char *name;
	FrameDecode decode;
	FrameDecodeRow decode_row;
	FrameRowSpan span;			/* NULL: no fetch reads part of its frames */
} FrameEncoding;

/*
 * What a fetch reading part of an uncompressed frame relies on
 * (codec/value_encoding.h, VALUE_PREFIX_BYTES): a row the frame decodes
 * has a span inside the frame, and decoded from a copy holding only the
 * frame's prefix and that span, every other byte poisoned, it is the row
 * decoded from the whole frame (v, n).
 */
static void
check_row_span(const char *name, FrameRowSpan span, FrameDecodeRow decode_row,
			   const ValueTypeInfo *t, const uint8 *raw, size_t rawlen,
			   uint32 expected, uint32 row, Datum v, bool n, FuzzRng *rng)
{
	size_t		prefix = Min(rawlen, VALUE_PREFIX_BYTES(expected));
	uint8		kept[256];
	uint32		start;
	uint32		len;
	Datum		sv;
	bool		sn;
	const char *err;

	/* a made value lives in room the next decode reuses: keep its bytes */
	if (!n && !t->typbyval)
	{
		size_t		size = t->typlen > 0 ? (size_t) t->typlen :
			VARSIZE_ANY(DatumGetPointer(v));

		FUZZ_CHECK(size <= sizeof(kept), "%s: row %u's value is too long to keep", name, row);
		memcpy(kept, DatumGetPointer(v), size);
		v = PointerGetDatum(kept);
	}
	err = span((const char *) raw, (uint32) rawlen, t, expected, row, &start,
			   &len);
	FUZZ_CHECK(err == NULL, "%s: row %u decodes, its span is refused: %s",
			   name, row, err);
	FUZZ_CHECK((uint64) start + len <= rawlen, "%s: row %u's span runs past the frame",
			   name, row);
	FUZZ_CHECK(!n || len == 0, "%s: NULL row %u has a span", name, row);
	memset(scratch_sparse, (int) rng_next(rng), rawlen);
	memcpy(scratch_sparse, raw, prefix);
	memcpy(scratch_sparse + start, raw + start, len);
	err = decode_row((const char *) scratch_sparse, (uint32) rawlen, t,
					 expected, row, &sv, &sn);
	FUZZ_CHECK(err == NULL && sn == n && (n || chunk_values_equal(t, sv, v)),
			   "%s: row %u decoded from its frame's prefix and its span differs",
			   name, row);
}

/*
 * Decodes the srclen bytes at src as a frame of expected rows of type t, in
 * guarded buffers, whole and row by row: when the whole decode accepts
 * them, every row decoded alone must agree with it; nothing may be touched
 * outside the buffers, nor the input changed.  The whole decode's verdict;
 * its values and NULL flags are left in gb_dst and gb_dst2.
 */
static const char *
frame_guarded_decode(const FrameEncoding *enc, const ValueTypeInfo *t,
					 const uint8 *src, size_t srclen, uint32 expected,
					 FuzzRng *rng)
{
	uint8	   *raw = fuzz_place_copy_maxaligned(&gb_src, src, srclen, rng_below(rng, 2));
	Datum	   *values = (Datum *) fuzz_place(&gb_dst, (size_t) expected * sizeof(Datum),
											  rng_below(rng, 2));
	bool	   *isnull = (bool *) fuzz_place(&gb_dst2, expected, rng_below(rng, 2));
	const char *err;
	uint32		row;

	if (expected > 0)
	{
		memset(values, 0xA5, (size_t) expected * sizeof(Datum));
		memset(isnull, 0xA5, expected);
	}
	err = enc->decode((const char *) raw, (uint32) srclen, t, expected, values,
					  isnull);
	for (row = 0; row < expected; row++)
	{
		Datum		v;
		bool		n;
		const char *rerr = enc->decode_row((const char *) raw, (uint32) srclen,
										   t, expected, row, &v, &n);

		if (err == NULL)
		{
			FUZZ_CHECK(rerr == NULL, "%s: the frame was accepted whole, row %u refused: %s",
					   enc->name, row, rerr);
			FUZZ_CHECK(n == isnull[row] && (n || chunk_values_equal(t, v, values[row])),
					   "%s: row %u decoded alone differs from the whole decode",
					   enc->name, row);
			if (enc->span != NULL)
				check_row_span(enc->name, enc->span, enc->decode_row, t, raw,
							   srclen, expected, row, v, n, rng);
		}
		else if (rerr != NULL && rng_below(rng, 4) == 0)
			break;
	}
	fuzz_check_aligned_gap(&gb_src, srclen, "frame");
	fuzz_check_canaries(&gb_src, "frame");
	fuzz_check_canaries(&gb_dst, "values");
	fuzz_check_canaries(&gb_dst2, "isnull");
	FUZZ_CHECK(srclen == 0 || memcmp(raw, src, srclen) == 0,
			   "%s: the decoder modified its input", enc->name);
	return err;
}

/*
 * What every frame encoding's target checks of a valid frame of count rows
 * (chunk_orig_values, chunk_orig_isnull) of type t, encoded into buf: it
 * decodes, whole and row by row, to the rows, and is refused one byte
 * shorter or longer; then a mutant of it (nmut mutations drawn from mut,
 * splicing bytes of arena) is decoded in guarded buffers.
 */
static void
frame_check_encoded(const FrameEncoding *enc, const ValueTypeInfo *t,
					StringInfo buf, uint32 count, FuzzReader *mut, int nmut,
					const uint8 *arena, size_t arena_used, FuzzRng *rng)
{
	size_t		enclen = buf->len;
	size_t		mlen;
	const char *err;
	uint32		i;

	FUZZ_CHECK(enclen <= FUZZ_MAX_COMP, "frame of %zu bytes is too big for the harness", enclen);
	memcpy(scratch_comp, buf->data, enclen);
	pfree(buf->data);

	err = frame_guarded_decode(enc, t, scratch_comp, enclen, count, rng);
	FUZZ_CHECK(err == NULL, "%s: valid frame of %u rows refused: %s",
			   enc->name, count, err);
	for (i = 0; i < count; i++)
	{
		bool		isnull = ((const bool *) gb_dst2.ptr)[i];
		Datum		v = ((const Datum *) gb_dst.ptr)[i];

		FUZZ_CHECK(isnull == chunk_orig_isnull[i], "%s: row %u: NULL flag lost", enc->name, i);
		FUZZ_CHECK(isnull || chunk_values_equal(t, v, chunk_orig_values[i]),
				   "%s: row %u: value changed in the round trip", enc->name, i);
	}
	err = frame_guarded_decode(enc, t, scratch_comp, enclen - 1, count, rng);
	FUZZ_CHECK(err != NULL, "%s: frame accepted without its last byte", enc->name);
	memcpy(scratch_ext, scratch_comp, enclen);
	scratch_ext[enclen] = (uint8) rng_next(rng);
	err = frame_guarded_decode(enc, t, scratch_ext, enclen + 1, count, rng);
	FUZZ_CHECK(err != NULL, "%s: frame accepted with a byte appended", enc->name);
	stat_roundtrips++;

	if (nmut == 0)
		return;
	memcpy(scratch_mut, scratch_comp, enclen);
	mlen = enclen;
	fuzz_mutate(mut, nmut, scratch_mut, &mlen, scratch_comp, enclen, arena,
				arena_used);
	stat_mutants++;
	if (frame_guarded_decode(enc, t, scratch_mut, mlen, count, rng) == NULL &&
		(mlen != enclen || memcmp(scratch_mut, scratch_comp, enclen) != 0))
		stat_mutants_accepted++;
}

/*
 * Values of a frame as packed.decode and decimal.decode draw them: a
 * pattern and its line, noise and wrap, read from the input.
 */
typedef struct ValuePattern
{
	uint32		mode;
	uint64		start;
	uint64		step;
	uint32		noise_bits;
	uint64		wrap;
} ValuePattern;

static void
read_value_pattern(FuzzReader *r, ValuePattern *vp)
{
	vp->mode = rd_u8(r);
	vp->start = (uint64) rd_u32(r) << 32 | rd_u32(r);
	if (rd_u8(r) & 1)
		vp->start = (uint64) (int64) (int32) vp->start;
	vp->step = rd_u8(r) & 1 ? (uint64) (int64) (int16) rd_u16(r) :
		(uint64) rd_u32(r) << 32 | rd_u32(r);
	vp->noise_bits = rd_u8(r) % 65;
	vp->wrap = rd_u16(r) % 200;
}

/* Row i's value under the pattern, as a 64-bit integer. */
static uint64
pattern_value(const ValuePattern *vp, int16 typlen, uint32 i, FuzzReader *r,
			  FuzzRng *rng)
{
	uint64		noise = 0;
	uint64		v;
	uint32		k;

	for (k = 0; k < vp->noise_bits; k += 8)
		noise |= (uint64) chunk_byte(r, rng) << k;
	if (vp->noise_bits < 64)
		noise &= (UINT64CONST(1) << vp->noise_bits) - 1;
	switch (vp->mode % 5)
	{
		case 0:
			v = noise;
			break;
		case 1:
			v = vp->start + vp->step * i + noise;
			break;
		case 2:
			v = vp->start + vp->step * (vp->wrap == 0 ? i : i % vp->wrap) + noise;
			break;
		case 3:
			/* the extremes of the type and around zero */
			{
				uint64		top = typlen == 8 ? PG_INT64_MAX :
					(UINT64CONST(1) << (8 * typlen - 1)) - 1;
				uint64		picks[4] = {top, ~top, 0, ~UINT64CONST(0)};

				v = picks[chunk_byte(r, rng) % 4];
				break;
			}
		default:
			v = vp->start;
			break;
	}
	return v;
}

/*
 * Sets *mut to the next nmut mutations' bytes (five each) of *r and moves
 * *r past them, as far as the input goes.
 */
static void
split_mutations(FuzzReader *r, int nmut, FuzzReader *mut)
{
	*mut = *r;
	r->p += Min(r->left, (size_t) nmut * 5);
	r->left -= Min(r->left, (size_t) nmut * 5);
	mut->left = Min(mut->left, (size_t) nmut * 5);
}

static const FrameEncoding dict_frames = {"dict", dict_decode, dict_decode_row,
NULL};

static void
fuzz_dict_decode(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	/* the by-reference shapes chunk.decode builds: fixed, varlena, cstring */
	const ChunkShape *shape = &chunk_shapes[4 + rd_u8(&r) % (CHUNK_BUILD_SHAPES - 4)];
	ValueTypeInfo t = chunk_type(shape, rd_u8(&r));
	uint32		rowsel = rd_u8(&r);
	uint32		nullmode;
	uint32		nullarg;
	uint32		pool;
	int			nmut;
	FuzzReader	mut;
	Datum		poolv[300];
	uint32		npool = 0;
	uint32		count;
	uint32		distinct;
	StringInfoData buf;
	bool		encoded;
	uint32		i;

	rowsel |= rd_u16(&r) << 8;
	nullmode = rd_u8(&r);
	nullarg = rd_u8(&r);
	pool = rd_u16(&r) % lengthof(poolv) + 1;
	nmut = (int) (rd_u8(&r) % 9);
	split_mutations(&r, nmut, &mut);
	rng_seed_from(&rng, data, len);

	chunk_arena_used = 0;
	for (i = 0; i < pool; i++)
		if (chunk_make_value(&t, &r, &rng, &poolv[npool]))
			npool++;
	count = chunk_pick_rows(rowsel);
	for (i = 0; i < count; i++)
	{
		chunk_orig_isnull[i] = npool == 0 ||
			chunk_row_null(nullmode, nullarg, i, &rng);
		chunk_orig_values[i] = chunk_orig_isnull[i] ? (Datum) 0 :
			poolv[rng_below(&rng, npool)];
	}

	initStringInfo(&buf);
	encoded = dict_encode(&buf, &t, chunk_orig_values, chunk_orig_isnull, count);
	distinct = dict_count_distinct(&t, chunk_orig_values, chunk_orig_isnull,
								   count, DICT_MAX_ENTRIES);
	FUZZ_CHECK(encoded == (distinct <= DICT_MAX_ENTRIES),
			   "%s: dict_encode %s %u distinct values", shape->name,
			   encoded ? "accepted" : "refused", distinct);
	if (!encoded)
	{
		FUZZ_CHECK(buf.len == 0, "%s: refused dict_encode left bytes behind", shape->name);
		pfree(buf.data);
		return;
	}
	frame_check_encoded(&dict_frames, &t, &buf, count, &mut, nmut, chunk_arena,
						chunk_arena_used, &rng);
}

/*
 * packed.decode.  Input layout: width selector, 24 bits of row count
 * selector, null pattern and its argument, value pattern, mutation count,
 * five bytes per mutation, then the bytes the values are made of.
 *
 * Values of 2, 4 and 8 bytes follow a pattern: random, a line with noise
 * of a chosen width (steps up, down, zero, huge), a line that wraps (a
 * counter modulo something), or the type's extremes.  An encoded frame
 * must decode, whole and row by row, to the rows, take no more bits than
 * its range needs, and be refused one byte shorter or longer.  Then a
 * mutant of it is decoded in guarded buffers: no crash, no access outside
 * them, and when accepted, every row decoded alone as in the whole decode.
 */
static const FrameEncoding packed_frames = {"packed", packed_decode,
packed_decode_row, packed_row_span};

static void
fuzz_packed_decode(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	static const int16 widths[] = {2, 4, 8};
	ValueTypeInfo t;
	uint32		rowsel;
	uint32		nullmode;
	uint32		nullarg;
	ValuePattern vp;
	int			nmut;
	FuzzReader	mut;
	uint32		count;
	StringInfoData buf;
	uint32		present = 0;
	uint32		i;

	t.typlen = widths[rd_u8(&r) % lengthof(widths)];
	t.typbyval = true;
	t.typalign = t.typlen == 2 ? TYPALIGN_SHORT :
		t.typlen == 4 ? TYPALIGN_INT : TYPALIGN_DOUBLE;
	rowsel = rd_u8(&r);
	rowsel |= rd_u16(&r) << 8;
	nullmode = rd_u8(&r);
	nullarg = rd_u8(&r);
	read_value_pattern(&r, &vp);
	nmut = (int) (rd_u8(&r) % 9);
	split_mutations(&r, nmut, &mut);
	rng_seed_from(&rng, data, len);

	count = chunk_pick_rows(rowsel);
	for (i = 0; i < count; i++)
	{
		uint64		v = pattern_value(&vp, t.typlen, i, &r, &rng);

		chunk_orig_isnull[i] = chunk_row_null(nullmode, nullarg, i, &rng);
		switch (t.typlen)
		{
			case 2:
				chunk_orig_values[i] = Int16GetDatum((int16) v);
				break;
			case 4:
				chunk_orig_values[i] = Int32GetDatum((int32) v);
				break;
			default:
				chunk_orig_values[i] = Int64GetDatum((int64) v);
				break;
		}
		if (chunk_orig_isnull[i])
			chunk_orig_values[i] = (Datum) 0;
		else
			present++;
	}

	initStringInfo(&buf);
	packed_encode(&buf, &t, chunk_orig_values, chunk_orig_isnull, count);
	/* never more bits than the values' range (a constant frame of reference) */
	{
		int64		lo = 0;
		int64		hi = 0;
		bool		have = false;
		uint64		range;
		uint32		bits;
		uint32		stored;

		for (i = 0; i < count; i++)
		{
			int64		v;

			if (chunk_orig_isnull[i])
				continue;
			v = t.typlen == 2 ? DatumGetInt16(chunk_orig_values[i]) :
				t.typlen == 4 ? DatumGetInt32(chunk_orig_values[i]) :
				DatumGetInt64(chunk_orig_values[i]);
			if (!have || v < lo)
				lo = v;
			if (!have || v > hi)
				hi = v;
			have = true;
		}
		range = (uint64) hi - (uint64) lo;
		bits = range == 0 ? 0 : pg_leftmost_one_pos64(range) + 1;
		memcpy(&stored, buf.data + MAXALIGN(chunk_values_start(count, count - present)) +
			   2 * sizeof(int64), sizeof(uint32));
		FUZZ_CHECK(stored <= bits, "%d-byte values of a %u-bit range packed in %u bits",
				   t.typlen, bits, stored);
	}
	frame_check_encoded(&packed_frames, &t, &buf, count, &mut, nmut, NULL, 0,
						&rng);
}

/*
 * decimal.decode.  Input layout: scale, 24 bits of row count selector,
 * null pattern and its argument, an odd value's kind and row, value
 * pattern, mutation count, five bytes per mutation, then the bytes the
 * values are made of.
 *
 * First numeric_write_scaled alone: a value it writes is numeric.c's own
 * form (short, no zero digit at either end, zero without digits and
 * positive) and numeric_to_scaled reads it back exactly.  Then frames of
 * numerics of one scale made so (1- or 4-byte headers), in patterns as
 * packed.decode's, sometimes with one odd value packed decimals cannot
 * hold (another scale, NaN, a long form, a zero digit kept, beyond 64
 * bits): packed_decimal_ok and packed_decimal_encode refuse exactly those
 * (encode leaves the buffer untouched); an encoded frame decodes, whole
 * and row by row, to numerics byte for byte as they were, each written in
 * its row's place, and is refused one byte shorter or longer; a mutant is
 * refused or decoded whole and row by row alike, without touching memory
 * outside the buffers.
 */
#define DECIMAL_NONE_ODD 6

/* Writes one odd numeric of the given kind at out; its length. */
static size_t
decimal_odd_value(uint32 kind, int scale, int64 m, uint8 *out)
{
	uint8		payload[40];
	size_t		plen;
	uint16		header;

	switch (kind % DECIMAL_NONE_ODD)
	{
		case 0:
			/* another scale */
			plen = numeric_write_scaled(m, (scale + 1) % 39, (char *) out);
			return plen;
		case 1:
			/* NaN */
			header = 0xC000;
			memcpy(payload, &header, 2);
			plen = 2;
			break;
		case 2:
			/* the long form of a short value: 0 x 10^-scale */
			header = (uint16) scale;
			memcpy(payload, &header, 2);
			memset(payload + 2, 0, 2);
			plen = 4;
			break;
		case 3:
			{
				/* a zero digit kept at the end: 1.0000 as two digits */
				int16		d[2] = {1, 0};

				header = (uint16) (0x8000 | (scale << 7));
				memcpy(payload, &header, 2);
				memcpy(payload + 2, d, 4);
				plen = 6;
				break;
			}
		case 4:
			{
				/* 10^24: beyond 64 bits */
				int16		d = 1;

				header = (uint16) (0x8000 | (scale << 7) | 6);
				memcpy(payload, &header, 2);
				memcpy(payload + 2, &d, 2);
				plen = 4;
				break;
			}
		default:
			/* an infinity */
			header = 0xD000;
			memcpy(payload, &header, 2);
			plen = 2;
			break;
	}
	SET_VARSIZE_SHORT(out, plen + 1);
	memcpy(out + 1, payload, plen);
	return plen + 1;
}

/* Checks numeric_write_scaled on mantissa m and scale. */
static void
decimal_check_write(int64 m, int scale)
{
	char		out[NUMERIC_WRITE_MAX_SIZE + 8];
	size_t		len;
	uint16		header;
	int			ndigits;
	int128		back;
	int			back_scale;

	memset(out, 0x5A, sizeof(out));
	len = numeric_write_scaled(m, scale, out);
	FUZZ_CHECK(len <= NUMERIC_WRITE_MAX_SIZE && VARATT_IS_1B(out) &&
			   VARSIZE_1B(out) == len && (uint8) out[len] == 0x5A,
			   "numeric_write_scaled(%lld, %d) wrote %zu bytes", (long long) m, scale, len);
	memcpy(&header, out + 1, 2);
	ndigits = (int) (len - 3) / 2;
	FUZZ_CHECK((header & 0xC000) == 0x8000 && ((header >> 7) & 0x3F) == scale,
			   "numeric_write_scaled(%lld, %d): header %04x", (long long) m, scale, header);
	if (ndigits > 0)
	{
		int16		first;
		int16		last;

		memcpy(&first, out + 3, 2);
		memcpy(&last, out + len - 2, 2);
		FUZZ_CHECK(first != 0 && last != 0,
				   "numeric_write_scaled(%lld, %d): a zero digit at an end", (long long) m, scale);
	}
	else
		FUZZ_CHECK(m == 0 && (header & 0x207F) == 0,
				   "numeric_write_scaled(%lld, %d): no digits, header %04x", (long long) m, scale, header);
	FUZZ_CHECK(numeric_to_scaled(PointerGetDatum(out), &back, &back_scale) &&
			   back == m && back_scale == scale,
			   "numeric_write_scaled(%lld, %d) reads back otherwise", (long long) m, scale);
}

/*
 * Decoders that make the values they return (packed decimals, packed
 * characters) into room the caller gives, each row's at its place: their
 * two functions, and the room of one value.
 */
typedef const char *(*MadeDecode) (const char *raw, uint32 rawlen,
								   uint32 expected_count, char *made,
								   Datum *values, bool *isnull);
typedef const char *(*MadeDecodeRow) (const char *raw, uint32 rawlen,
									  uint32 expected_count, uint32 row,
									  char *made, Datum *value, bool *isnull);

typedef const char *(*MadeRowSpan) (const char *raw, uint32 rawlen,
								   uint32 expected_count, uint32 row,
								   uint32 *start, uint32 *len);

typedef const char *(*MadeDecodeScaled) (const char *raw, uint32 rawlen,
										uint32 expected_count,
										ScaledNumeric *scaled, bool *isnull);

typedef struct MadeEncoding
{
	const char *name;
	MadeDecode decode;
	MadeDecodeRow decode_row;
	MadeRowSpan span;
	size_t		room;
	MadeDecodeScaled decode_scaled; /* NULL: values only */
} MadeEncoding;

/* The encoding and the input's generator the made_* adapters serve. */
static const MadeEncoding *made_enc;
static FuzzRng *made_rng;

/*
 * made_enc's whole decode as a FrameDecode: the values are made in a
 * guarded buffer, each a short varlena in its row's place.
 */
static const char *
made_decode_guarded(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
					uint32 expected, Datum *values, bool *isnull)
{
	char	   *made = (char *) fuzz_place(&gb_chunk2, (size_t) expected * made_enc->room,
										   rng_below(made_rng, 2));
	const char *err = made_enc->decode(raw, rawlen, expected, made, values,
									   isnull);
	uint32		i;

	fuzz_check_canaries(&gb_chunk2, "made values");
	for (i = 0; err == NULL && i < expected; i++)
		FUZZ_CHECK(isnull[i] ||
				   (DatumGetPointer(values[i]) == made + (size_t) i * made_enc->room &&
					VARATT_IS_1B(DatumGetPointer(values[i]))),
				   "%s: row %u is not a short varlena in its place", made_enc->name, i);

	/*
	 * Decoded as scaled integers instead (a scan whose consumer adds them):
	 * refused alike, and each value the mantissa and scale of the numeric
	 * the whole decode wrote.
	 */
	if (made_enc->decode_scaled != NULL && expected <= CHUNK_MAX_EXPECTED)
	{
		ScaledNumeric *scaled = (ScaledNumeric *)
			fuzz_place(&gb_scaled, (size_t) expected * sizeof(ScaledNumeric),
					   rng_below(made_rng, 2));
		bool	   *snull = (bool *) fuzz_place(&gb_scaled_isnull, expected,
												rng_below(made_rng, 2));
		const char *serr = made_enc->decode_scaled(raw, rawlen, expected,
												   scaled, snull);

		fuzz_check_canaries(&gb_scaled, "scaled values");
		fuzz_check_canaries(&gb_scaled_isnull, "scaled NULL flags");
		FUZZ_CHECK((err == NULL) == (serr == NULL),
				   "%s: the scaled decode %s what the whole decode %s",
				   made_enc->name, serr == NULL ? "accepted" : "refused",
				   err == NULL ? "accepted" : "refused");
		for (i = 0; err == NULL && i < expected; i++)
		{
			int128		m;
			int			scale;

			FUZZ_CHECK(snull[i] == isnull[i], "%s: row %u's NULL flag differs scaled",
					   made_enc->name, i);
			if (isnull[i])
				continue;
			FUZZ_CHECK(numeric_to_scaled(values[i], &m, &scale) && scaled[i].ok &&
					   scaled[i].mantissa == m && scaled[i].dscale == scale,
					   "%s: row %u scaled is not the numeric written", made_enc->name, i);
		}
	}
	return err;
}

/* made_enc's row decode as a FrameDecodeRow. */
static const char *
made_decode_row_guarded(const char *raw, uint32 rawlen,
						const ValueTypeInfo *type, uint32 expected,
						uint32 row, Datum *value, bool *isnull)
{
	char	   *made = (char *) chunk_saved_values; /* CHUNK_MAX_EXPECTED * 8 bytes */

	if ((size_t) expected * made_enc->room > CHUNK_MAX_EXPECTED * sizeof(Datum))
		return "more rows than the harness makes room for";
	return made_enc->decode_row(raw, rawlen, expected, row, made, value,
								isnull);
}

/* made_enc's span as a FrameRowSpan. */
static const char *
made_row_span(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
			  uint32 expected, uint32 row, uint32 *start, uint32 *len)
{
	return made_enc->span(raw, rawlen, expected, row, start, len);
}

static const MadeEncoding decimal_made = {"decimal", packed_decimal_decode,
	packed_decimal_decode_row, packed_decimal_row_span, PACKED_DECIMAL_SIZE,
packed_decimal_decode_scaled};
static const FrameEncoding decimal_frames = {"decimal", made_decode_guarded,
made_decode_row_guarded, made_row_span};

static void
fuzz_decimal_decode(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	int			scale = rd_u8(&r) % 39;
	uint32		rowsel;
	uint32		nullmode;
	uint32		nullarg;
	ValuePattern vp;
	uint32		odd_kind;
	uint32		odd_row;
	int			nmut;
	FuzzReader	mut;
	uint32		count;
	bool		has_odd = false;
	/* compared as values: varlena payloads, whatever their headers */
	ValueTypeInfo t = {-1, false, TYPALIGN_INT};
	StringInfoData buf;
	uint32		i;

	rowsel = rd_u8(&r);
	rowsel |= rd_u16(&r) << 8;
	nullmode = rd_u8(&r);
	nullarg = rd_u8(&r);
	odd_kind = rd_u8(&r);
	odd_row = rd_u16(&r);
	read_value_pattern(&r, &vp);
	nmut = (int) (rd_u8(&r) % 9);
	split_mutations(&r, nmut, &mut);
	rng_seed_from(&rng, data, len);
	made_enc = &decimal_made;
	made_rng = &rng;

	decimal_check_write((int64) vp.start, scale);
	decimal_check_write((int64) vp.step, (scale * 7) % 39);
	decimal_check_write(PG_INT64_MIN + (int64) (vp.start % 3), scale);
	decimal_check_write(PG_INT64_MAX - (int64) (vp.step % 3), scale);

	count = chunk_pick_rows(rowsel);
	chunk_arena_used = 0;
	for (i = 0; i < count; i++)
	{
		int64		m = (int64) pattern_value(&vp, 8, i, &r, &rng);
		uint8	   *p = chunk_alloc(VARHDRSZ + NUMERIC_WRITE_MAX_SIZE + 8);
		size_t		vlen;

		chunk_orig_isnull[i] = chunk_row_null(nullmode, nullarg, i, &rng);
		chunk_orig_values[i] = (Datum) 0;
		if (chunk_orig_isnull[i] || p == NULL)
		{
			chunk_orig_isnull[i] = true;
			continue;
		}
		if (odd_kind % 4 == 0 && i == odd_row % Max(count, 1))
		{
			vlen = decimal_odd_value(odd_kind / 4, scale, m, p);
			has_odd = true;
		}
		else
			vlen = numeric_write_scaled(m, scale, (char *) p);
		/* the writer hands over 4-byte headers too */
		if ((rd_u8(&r) & 3) == 0)
		{
			memmove(p + VARHDRSZ, p + 1, vlen - 1);
			SET_VARSIZE(p, vlen - 1 + VARHDRSZ);
		}
		chunk_orig_values[i] = PointerGetDatum(p);
	}
	/* an odd value of another scale is odd only beside a value of this one */
	if (has_odd && odd_kind / 4 % DECIMAL_NONE_ODD == 0)
	{
		uint32		present = 0;

		for (i = 0; i < count; i++)
			present += !chunk_orig_isnull[i];
		has_odd = present > 1;
	}

	FUZZ_CHECK(packed_decimal_ok(chunk_orig_values, chunk_orig_isnull, count) == !has_odd,
			   "packed_decimal_ok: %s a frame %s an odd value", has_odd ? "accepted" : "refused",
			   has_odd ? "with" : "without");
	initStringInfo(&buf);
	FUZZ_CHECK(packed_decimal_encode(&buf, chunk_orig_values, chunk_orig_isnull, count) == !has_odd &&
			   (!has_odd || buf.len == 0),
			   "packed_decimal_encode disagrees with packed_decimal_ok");
	if (has_odd)
	{
		pfree(buf.data);
		return;
	}
	frame_check_encoded(&decimal_frames, &t, &buf, count, &mut, nmut, NULL, 0,
						&rng);
}

/*
 * chars.decode.  Input layout: length selector, alphabet size, null
 * pattern and its argument, 24 bits of row count selector, an odd value's
 * kind and row, mutation count, five bytes per mutation, then the bytes
 * the values are made of.
 *
 * Frames of strings of one length (1 to 126 bytes) over an alphabet of 1
 * to 16 bytes drawn from the input, with 1- and 4-byte headers, sometimes
 * with one value packed characters cannot hold (another length, a
 * seventeenth symbol, 127 bytes, empty): chars_ok and chars_encode refuse
 * exactly those, chars_encode leaving the buffer untouched; an encoded
 * frame decodes, whole and row by row, to the strings byte for byte, each
 * behind a 1-byte header in its row's place, and is refused one byte
 * shorter or longer; a mutant is refused or decoded alike both ways,
 * inside the buffers.
 */
static const MadeEncoding chars_made = {"chars", chars_decode,
chars_decode_row, chars_row_span, CHARS_VALUE_ROOM, NULL};
static const FrameEncoding chars_frames = {"chars", made_decode_guarded,
made_decode_row_guarded, made_row_span};

static void
fuzz_chars_decode(const uint8 *data, size_t len)
{
	FuzzReader	r = {data, len};
	FuzzRng		rng;
	ValueTypeInfo t = {-1, false, TYPALIGN_INT};
	uint32		lensel = rd_u8(&r);
	uint32		nsym = 1 + rd_u8(&r) % CHARS_MAX_SYMBOLS;
	uint32		nullmode = rd_u8(&r);
	uint32		nullarg = rd_u8(&r);
	uint32		rowsel;
	uint32		odd_kind = rd_u8(&r);
	uint32		odd_row = rd_u16(&r);
	uint32		slen;
	uint8		alphabet[CHARS_MAX_SYMBOLS + 1];
	int			nmut;
	FuzzReader	mut;
	uint32		count;
	bool		has_odd = false;
	bool		have_value = false;
	StringInfoData buf;
	uint32		i;

	rowsel = rd_u8(&r);
	rowsel |= rd_u16(&r) << 8;
	slen = lensel & 0x80 ? 1 + lensel % CHARS_MAX_LENGTH : 1 + lensel % 40;
	nmut = (int) (rd_u8(&r) % 9);
	split_mutations(&r, nmut, &mut);
	rng_seed_from(&rng, data, len);
	made_enc = &chars_made;
	made_rng = &rng;

	/* distinct symbols, any bytes (zero too) */
	for (i = 0; i <= CHARS_MAX_SYMBOLS; i++)
	{
		uint32		k;
		uint8		b;

		do
		{
			b = (uint8) chunk_byte(&r, &rng);
			for (k = 0; k < i && alphabet[k] != b; k++)
				;
		} while (k < i);
		alphabet[i] = b;
	}

	count = chunk_pick_rows(rowsel);
	chunk_arena_used = 0;
	for (i = 0; i < count; i++)
	{
		uint8	   *p = chunk_alloc(VARHDRSZ + CHARS_MAX_LENGTH + 2);
		uint32		n = slen;
		uint32		k;
		bool		odd = odd_kind % 4 == 0 && i == odd_row % Max(count, 1);
		bool		short_header = (rd_u8(&r) & 3) != 0;
		size_t		hdr;

		chunk_orig_isnull[i] = chunk_row_null(nullmode, nullarg, i, &rng) || p == NULL;
		chunk_orig_values[i] = (Datum) 0;
		if (chunk_orig_isnull[i])
			continue;
		if (odd)
		{
			switch (odd_kind / 4 % 4)
			{
				case 0:
					n = slen == 1 ? 2 : slen - 1;	/* another length */
					break;
				case 1:
					n = CHARS_MAX_LENGTH + 1;	/* too long */
					break;
				case 2:
					n = 0;		/* empty */
					break;
				default:
					break;		/* a seventeenth symbol, below */
			}
			has_odd = true;
		}
		hdr = short_header && n + 1 <= 127 ? VARHDRSZ_SHORT : VARHDRSZ;
		if (hdr == VARHDRSZ_SHORT)
			SET_VARSIZE_SHORT(p, hdr + n);
		else
			SET_VARSIZE(p, hdr + n);
		for (k = 0; k < n; k++)
			p[hdr + k] = alphabet[rng_below(&rng, nsym)];
		if (odd && odd_kind / 4 % 4 == 3)
			p[hdr + rng_below(&rng, n)] = alphabet[CHARS_MAX_SYMBOLS];
		chunk_orig_values[i] = PointerGetDatum(p);
		/* another length is odd only beside a value of this one */
		if (!odd)
			have_value = true;
	}
	/* a seventeenth symbol is odd only beside sixteen others */
	if (has_odd && odd_kind / 4 % 4 == 3)
	{
		bool		seen[256] = {0};
		uint32		nseen = 0;

		for (i = 0; i < count; i++)
		{
			const uint8 *p;
			uint32		k;

			if (chunk_orig_isnull[i])
				continue;
			p = (const uint8 *) VARDATA_ANY(DatumGetPointer(chunk_orig_values[i]));
			for (k = 0; k < VARSIZE_ANY_EXHDR(DatumGetPointer(chunk_orig_values[i])); k++)
				if (!seen[p[k]])
				{
					seen[p[k]] = true;
					nseen++;
				}
		}
		has_odd = nseen > CHARS_MAX_SYMBOLS;
	}
	else if (has_odd && odd_kind / 4 % 4 == 0)
		has_odd = have_value;

	FUZZ_CHECK(chars_ok(chunk_orig_values, chunk_orig_isnull, count) == !has_odd,
			   "chars_ok: %s a frame %s an odd value", has_odd ? "accepted" : "refused",
			   has_odd ? "with" : "without");
	initStringInfo(&buf);
	FUZZ_CHECK(chars_encode(&buf, chunk_orig_values, chunk_orig_isnull, count) == !has_odd &&
			   (!has_odd || buf.len == 0),
			   "chars_encode disagrees with chars_ok");
	if (has_odd)
	{
		pfree(buf.data);
		return;
	}
	frame_check_encoded(&chars_frames, &t, &buf, count, &mut, nmut, NULL, 0,
						&rng);
}

/* ----------------------------------------------------------------
 * checksum.crc32c: checksum_bytes (three streams on x86-64) gives
 * PostgreSQL's CRC-32C of every length and alignment, the lengths around
 * its 3 kB rounds included.
 * ----------------------------------------------------------------
 */
static void
fuzz_checksum(const uint8 *data, size_t len)
{
	FuzzRng		rng;
	size_t		n;
	size_t		offset;
	uint8	   *buf;
	size_t		i;
	pg_crc32c	expected;

	rng_seed_from(&rng, data, len);
	switch (rng_below(&rng, 3))
	{
		case 0:
			n = rng_below(&rng, 64);
			break;
		case 1:
			/* a round and a tail, or just short of a round */
			n = 3072 * (1 + rng_below(&rng, 4)) + rng_below(&rng, 17) - 8;
			break;
		default:
			n = rng_below(&rng, 40000);
			break;
	}
	offset = rng_below(&rng, 8);
	buf = malloc(n + offset + 1);
	FUZZ_CHECK(buf != NULL, "checksum: out of memory");
	for (i = 0; i < n; i++)
		buf[offset + i] = len > 0 && rng_below(&rng, 2) ? data[i % len] :
			(uint8) rng_next(&rng);
	INIT_CRC32C(expected);
	COMP_CRC32C(expected, buf + offset, n);
	FIN_CRC32C(expected);
	FUZZ_CHECK(checksum_bytes(buf + offset, n) == (uint32) expected,
			   "checksum: %zu bytes at offset %zu differ from COMP_CRC32C",
			   n, offset);
	free(buf);
}

static const FuzzTarget fuzz_targets[] = {
	{"none.roundtrip", fuzz_none_roundtrip, fuzz_none_enabled},
	{"none.decode", fuzz_none_decode, fuzz_none_enabled},
	{"pglz.roundtrip", fuzz_pglz_roundtrip, fuzz_pglz_enabled},
	{"pglz.decode", fuzz_pglz_decode, fuzz_pglz_enabled},
	{"lz4.roundtrip", fuzz_lz4_roundtrip, fuzz_lz4_enabled},
	{"lz4.decode", fuzz_lz4_decode, fuzz_lz4_enabled},
	{"zstd.roundtrip", fuzz_zstd_roundtrip, fuzz_zstd_enabled},
	{"zstd.decode", fuzz_zstd_decode, fuzz_zstd_enabled},
	{"zstd.dict", fuzz_zstd_dict, fuzz_zstd_enabled},
	{"deflate.roundtrip", fuzz_deflate_roundtrip, fuzz_deflate_enabled},
	{"deflate.decode", fuzz_deflate_decode, fuzz_deflate_enabled},
	{"chunk.decode", fuzz_chunk_decode, NULL},
	{"chunk.raw", fuzz_chunk_raw, NULL},
	{"frames.decode", fuzz_frames_decode, NULL},
	{"numeric.scaled", fuzz_numeric_scaled, NULL},
	{"distinct.merge", fuzz_distinct_merge, NULL},
	{"dict.decode", fuzz_dict_decode, NULL},
	{"packed.decode", fuzz_packed_decode, NULL},
	{"decimal.decode", fuzz_decimal_decode, NULL},
	{"chars.decode", fuzz_chars_decode, NULL},
	{"checksum.crc32c", fuzz_checksum, NULL},
};

#define FUZZ_TARGET_COUNT lengthof(fuzz_targets)

static bool
target_enabled(const FuzzTarget *t)
{
	return t->enabled == NULL || t->enabled();
}

static void
run_target(const FuzzTarget *t, const uint8 *data, size_t len)
{
	cur_target = t->name;
	cur_data = data;
	cur_len = len;
	t->run(data, len);
}

/* ----------------------------------------------------------------
 * Registry checks, run once before fuzzing
 * ----------------------------------------------------------------
 */
static void
check_registry(void)
{
	char		names[256];
	size_t		used = 0;
	int			i;

	cur_target = "registry";
	for (i = 0; i < CODEC_COUNT; i++)
	{
		const Codec *c = codec_by_id(i);
		char		upper[32];
		size_t		k;

		FUZZ_CHECK(c != NULL && (int) c->id == i, "codec_by_id(%d) is wrong", i);
		FUZZ_CHECK(codec_by_name(c->name) == c, "codec_by_name(\"%s\") is wrong", c->name);
		for (k = 0; c->name[k] != '\0' && k < sizeof(upper) - 1; k++)
			upper[k] = (c->name[k] >= 'a' && c->name[k] <= 'z') ?
				c->name[k] - 'a' + 'A' : c->name[k];
		upper[k] = '\0';
		FUZZ_CHECK(codec_by_name(upper) == c, "codec_by_name(\"%s\") is not case-insensitive", upper);
		FUZZ_CHECK(c->min_level <= c->default_level && c->default_level <= c->max_level,
				   "%s: default level outside its range", c->name);
		FUZZ_CHECK(!c->available || (c->bound && c->compress && c->decompress),
				   "%s: available without functions", c->name);
		FUZZ_CHECK(c->available || (!c->bound && !c->compress && !c->decompress),
				   "%s: unavailable with functions", c->name);
		FUZZ_CHECK(!c->available || (c->bound(-1) == -1 && c->bound(0) >= 0),
				   "%s: bound() of -1 or 0 is wrong", c->name);
		used += snprintf(names + used, sizeof(names) - used, "%s%s",
						 i > 0 ? ", " : "", c->name);
	}
	FUZZ_CHECK(codec_by_id(-1) == NULL && codec_by_id(CODEC_COUNT) == NULL,
			   "codec_by_id accepts an unknown id");
	FUZZ_CHECK(codec_by_name("zstd ") == NULL && codec_by_name("") == NULL &&
			   codec_by_name("zst") == NULL && codec_by_name(NULL) == NULL,
			   "codec_by_name accepts an unknown name");
	FUZZ_CHECK(strcmp(codec_names_list(), names) == 0,
			   "codec_names_list() is \"%s\", records say \"%s\"",
			   codec_names_list(), names);
	FUZZ_CHECK(codec_by_id(CODEC_NONE)->available && codec_by_id(CODEC_PGLZ)->available,
			   "none and pglz must always be available");
}

/* ----------------------------------------------------------------
 * Drivers
 * ----------------------------------------------------------------
 */
#ifdef FUZZ_LIBFUZZER

extern int	LLVMFuzzerInitialize(int *argc, char ***argv);
extern int	LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

static int	libfuzzer_target = -1;	/* index, or -1: chosen by first byte */
static int	enabled_index[FUZZ_TARGET_COUNT];
static int	enabled_count = 0;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *want = getenv("FUZZ_TARGET");
	int			i;

	libfuzzer_mode = true;
	if (getenv("FUZZ_CRASH_DIR"))
		crash_dir = getenv("FUZZ_CRASH_DIR");
	fuzz_setup();
	check_registry();
	for (i = 0; i < (int) FUZZ_TARGET_COUNT; i++)
	{
		if (!target_enabled(&fuzz_targets[i]))
			continue;
		enabled_index[enabled_count++] = i;
		if (want != NULL && strcmp(want, fuzz_targets[i].name) == 0)
			libfuzzer_target = i;
	}
	if (want != NULL && libfuzzer_target < 0)
	{
		fprintf(stderr, "fuzz: unknown or unavailable FUZZ_TARGET \"%s\"\n", want);
		exit(2);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	if (libfuzzer_target >= 0)
		run_target(&fuzz_targets[libfuzzer_target], data, size);
	else if (size > 0 && enabled_count > 0)
		run_target(&fuzz_targets[enabled_index[data[0] % enabled_count]],
				   data + 1, size - 1);
	cur_iteration++;
	return 0;
}

#else							/* !FUZZ_LIBFUZZER: the random driver */

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Random input: mostly short, sometimes up to 64 kB. */
static size_t
random_input(FuzzRng *rng, uint8 *buf)
{
	uint64		kind = rng_below(rng, 100);
	size_t		len;
	size_t		i;

	if (kind < 50)
		len = rng_below(rng, 64);
	else if (kind < 75)
		len = 64 + rng_below(rng, 960);
	else if (kind < 92)
		len = 1024 + rng_below(rng, 15 * 1024);
	else
		len = 16384 + rng_below(rng, 48 * 1024);
	for (i = 0; i + 8 <= len; i += 8)
	{
		uint64		v = rng_next(rng);

		memcpy(buf + i, &v, 8);
	}
	for (; i < len; i++)
		buf[i] = (uint8) rng_next(rng);
	return len;
}

static uint8 *
read_file_all(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8	   *buf;
	long		n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
		fseek(f, 0, SEEK_SET) != 0)
	{
		fprintf(stderr, "fuzz: cannot read %s: %s\n", path, strerror(errno));
		exit(2);
	}
	buf = xmalloc((size_t) n + 1);
	if (n > 0 && fread(buf, 1, (size_t) n, f) != (size_t) n)
	{
		fprintf(stderr, "fuzz: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	*len = (size_t) n;
	return buf;
}

static void
usage(void)
{
	printf("usage: fuzz_codecs [--seed N] [--seconds N] [--iterations N]\n"
		   "                   [--target NAME]... [--replay FILE] [--list]\n"
		   "  --seed N        random seed (default 1); runs are deterministic per seed\n"
		   "  --seconds N     stop after N seconds (default 10 unless --iterations)\n"
		   "  --iterations N  stop after N iterations in total\n"
		   "  --target NAME   run only this target (repeatable; a group such as \"zstd\"\n"
		   "                  selects all its targets)\n"
		   "  --replay FILE   run one saved input through the single --target\n"
		   "  --list          list the targets and whether they are enabled\n"
		   "environment: FUZZ_CRASH_DIR, where failing inputs are written (default .)\n");
}

/* Does the --target argument select this target (full name or group)? */
static bool
target_matches(const char *want, const char *name)
{
	size_t		n = strlen(want);

	return strcmp(want, name) == 0 ||
		(strncmp(want, name, n) == 0 && name[n] == '.');
}

int
main(int argc, char **argv)
{
	double		seconds = -1;
	uint64		max_iterations = 0;
	const char *replay = NULL;
	const char *wanted[FUZZ_TARGET_COUNT * 2];
	int			nwanted = 0;
	bool		selected[FUZZ_TARGET_COUNT];
	uint64		counts[FUZZ_TARGET_COUNT];
	int			order[FUZZ_TARGET_COUNT];
	int			norder = 0;
	uint8	   *input;
	FuzzRng		rng;
	double		start;
	double		elapsed;
	uint64		total = 0;
	int			i;

	i = 1;
	while (i < argc)
	{
		const char *arg = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(arg, "--list") == 0)
		{
			int			t;

			for (t = 0; t < (int) FUZZ_TARGET_COUNT; t++)
				printf("%-20s %s\n", fuzz_targets[t].name,
					   target_enabled(&fuzz_targets[t]) ? "enabled" : "unavailable");
			return 0;
		}
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
		{
			usage();
			return 0;
		}
		if (val == NULL)
		{
			usage();
			return 2;
		}
		if (strcmp(arg, "--seed") == 0)
			run_seed = strtoull(val, NULL, 0);
		else if (strcmp(arg, "--seconds") == 0)
			seconds = atof(val);
		else if (strcmp(arg, "--iterations") == 0)
			max_iterations = strtoull(val, NULL, 0);
		else if (strcmp(arg, "--target") == 0 && nwanted < (int) lengthof(wanted))
			wanted[nwanted++] = val;
		else if (strcmp(arg, "--replay") == 0)
			replay = val;
		else
		{
			usage();
			return 2;
		}
		i += 2;
	}
	if (seconds < 0 && max_iterations == 0)
		seconds = 10;
	if (getenv("FUZZ_CRASH_DIR"))
		crash_dir = getenv("FUZZ_CRASH_DIR");

	setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef FUZZ_ASAN
	__sanitizer_set_death_callback(sanitizer_death);
#else
	signal(SIGSEGV, fatal_signal);
	signal(SIGBUS, fatal_signal);
	signal(SIGABRT, fatal_signal);
#endif

	fuzz_setup();
	check_registry();

	for (i = 0; i < (int) FUZZ_TARGET_COUNT; i++)
	{
		int			w;

		selected[i] = nwanted == 0;
		for (w = 0; w < nwanted; w++)
			selected[i] |= target_matches(wanted[w], fuzz_targets[i].name);
		counts[i] = 0;
		if (selected[i] && target_enabled(&fuzz_targets[i]))
			order[norder++] = i;
	}
	if (norder == 0)
	{
		printf("fuzz: FAILED no enabled target matches the --target options\n");
		return 2;
	}

	if (replay != NULL)
	{
		size_t		len;
		uint8	   *data = read_file_all(replay, &len);

		if (norder != 1)
		{
			printf("fuzz: FAILED --replay needs exactly one --target\n");
			return 2;
		}
		run_target(&fuzz_targets[order[0]], data, len);
		printf("fuzz: ok (1 iterations)\n");
		return 0;
	}

	input = xmalloc(64 * 1024);
	rng.state = run_seed;
	start = now_seconds();
	for (;;)
	{
		int			t = order[total % norder];
		size_t		len;

		if (max_iterations > 0 && total >= max_iterations)
			break;
		if (seconds >= 0 && (total % norder) == 0 && now_seconds() - start >= seconds)
			break;
		len = random_input(&rng, input);
		cur_iteration = total;
		run_target(&fuzz_targets[t], input, len);
		counts[t]++;
		total++;
	}
	elapsed = now_seconds() - start;

	/* One line of counts per target group, then the verdict. */
	printf("fuzz: seed %llu, %.1f s, iterations per target group:",
		   (unsigned long long) run_seed, elapsed);
	for (i = 0; i < norder; i++)
	{
		const char *name = fuzz_targets[order[i]].name;
		size_t		glen = strcspn(name, ".");
		uint64		sum = 0;
		int			j;

		if (i > 0 && strncmp(fuzz_targets[order[i - 1]].name, name, glen) == 0 &&
			fuzz_targets[order[i - 1]].name[glen] == '.')
			continue;
		for (j = i; j < norder; j++)
		{
			if (strncmp(fuzz_targets[order[j]].name, name, glen) == 0 &&
				fuzz_targets[order[j]].name[glen] == '.')
				sum += counts[order[j]];
		}
		printf("%s %.*s %llu", i > 0 ? "," : "", (int) glen, name,
			   (unsigned long long) sum);
	}
	printf("\n");
	printf("fuzz: %llu round trips checked, %llu mutated buffers decoded, %llu of them accepted\n",
		   (unsigned long long) stat_roundtrips, (unsigned long long) stat_mutants,
		   (unsigned long long) stat_mutants_accepted);
	for (i = 0; i < (int) FUZZ_TARGET_COUNT; i++)
	{
		if (selected[i] && !target_enabled(&fuzz_targets[i]))
			printf("fuzz: skipped %s (codec not built)\n", fuzz_targets[i].name);
	}
	codec_release_resources();
	printf("fuzz: ok (%llu iterations)\n", (unsigned long long) total);
	return 0;
}

#endif							/* FUZZ_LIBFUZZER */
