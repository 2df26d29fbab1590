/*-------------------------------------------------------------------------
 *
 * fuzz_rowbatch.c
 *	  Fuzz harness for the rowcompress batch checker (row_batch_check in
 *	  src/rowstore/row_batch.c), the one function that stands between
 *	  untrusted decompressed bytes and PostgreSQL's tuple deforming code.
 *
 *	  The property fuzzed is the checker's contract: whatever it accepts,
 *	  deforming every row the way PostgreSQL does (reference_deform below,
 *	  which trusts the bytes exactly as slot_deform_heap_tuple does, and
 *	  then reads every value whole) stays inside the batch buffer.  The
 *	  buffer is placed flush against a PROT_NONE page (alternately at its
 *	  end and at its start), so an over-read faults even without
 *	  AddressSanitizer; build with -fsanitize=address,undefined anyway.
 *	  Further properties: a batch encoded by the harness's own encoder is
 *	  accepted and decodes to the encoded values; the checker is
 *	  deterministic; row offsets it reports are increasing, MAXALIGNed and
 *	  inside the buffer.
 *
 *	  Each input drives one case: the first bytes choose a column layout,
 *	  a number of rows and their values; the batch built from them is then
 *	  checked as is and after mutations also drawn from the input (bit
 *	  flips, overwritten header fields, truncation, extension), so a saved
 *	  input replays exactly.
 *
 *	  Standalone build and run (the harness has its own driver; it links
 *	  only row_batch.c, built as FRONTEND code, and libpgport for printf):
 *
 *	    gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
 *	        -DFRONTEND -Isrc -I$(pg_config --includedir-server) \
 *	        -I$(pg_config --includedir) \
 *	        test/fuzz/fuzz_rowbatch.c src/rowstore/row_batch.c \
 *	        $(pg_config --pkglibdir)/libpgport_shlib.a -o fuzz_rowbatch
 *	    (Debian keeps libpgport_shlib.a in pg_config --libdir instead.)
 *	    ./fuzz_rowbatch --seconds 10 [--seed N] [--iterations N]
 *	    ./fuzz_rowbatch --replay crash-rowbatch-<n>.bin
 *
 *	  It ends with "fuzz: ok (N iterations)" or "fuzz: FAILED ..." and saves
 *	  a failing input as $FUZZ_CRASH_DIR/crash-rowbatch-<iteration>.bin.
 *	  With clang, -DFUZZ_LIBFUZZER -fsanitize=fuzzer builds a libFuzzer
 *	  target instead (LLVMFuzzerTestOneInput).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat/compat_varatt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "catalog/pg_type_d.h"

#include "rowstore/row_batch.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#define FUZZ_POISON(p, n)	ASAN_POISON_MEMORY_REGION((p), (n))
#define FUZZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define FUZZ_POISON(p, n)	((void) 0)
#define FUZZ_UNPOISON(p, n) ((void) 0)
#endif

#define MAX_INPUT		(64 * 1024)
#define MAX_ATTS		12
#define MAX_ROWS		64
#define MAX_BATCH		(512 * 1024)

/* ----------------------------------------------------------------
 * Failing, and reading choices from the input
 * ----------------------------------------------------------------
 */
static const uint8 *cur_data;
static size_t cur_len;
static uint64 cur_iteration;

static void fuzz_fail(const char *fmt,...) pg_attribute_printf(1, 2);

static void
fuzz_fail(const char *fmt,...)
{
	va_list		args;
	char		path[1024];
	const char *dir = getenv("FUZZ_CRASH_DIR");
	FILE	   *f;

	fprintf(stdout, "fuzz: FAILED (rowbatch, iteration " UINT64_FORMAT ": ",
			cur_iteration);
	va_start(args, fmt);
	vfprintf(stdout, fmt, args);
	va_end(args);
	snprintf(path, sizeof(path), "%s/crash-rowbatch-" UINT64_FORMAT ".bin",
			 dir ? dir : ".", cur_iteration);
	f = fopen(path, "wb");
	if (f != NULL)
	{
		if (cur_len > 0)
			fwrite(cur_data, 1, cur_len, f);
		fclose(f);
		fprintf(stdout, "; input saved as %s", path);
	}
	fprintf(stdout, ")\n");
	fflush(stdout);
	abort();
}

#define FUZZ_CHECK(cond, ...) \
	do { if (!(cond)) fuzz_fail(__VA_ARGS__); } while (0)

typedef struct Reader
{
	const uint8 *data;
	size_t		len;
	size_t		pos;
} Reader;

static uint32
take(Reader *r, uint32 limit)
{
	uint32		v = 0;
	int			i;

	for (i = 0; i < 4; i++)
		v = (v << 8) | (r->pos < r->len ? r->data[r->pos++] : 0);
	return limit == 0 ? v : v % limit;
}

static uint8
take_byte(Reader *r)
{
	return r->pos < r->len ? r->data[r->pos++] : 0;
}

/* ----------------------------------------------------------------
 * Guarded placement of the batch
 * ----------------------------------------------------------------
 */
static char *guard_region;
static size_t guard_size;
static size_t page_size;

static void
guard_setup(void)
{
	page_size = (size_t) sysconf(_SC_PAGESIZE);
	guard_size = TYPEALIGN(page_size, MAX_BATCH + 64) + 2 * page_size;
	guard_region = mmap(NULL, guard_size, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard_region == MAP_FAILED)
	{
		printf("fuzz: FAILED (mmap)\n");
		exit(1);
	}
	/* a PROT_NONE page at each end */
	mprotect(guard_region, page_size, PROT_NONE);
	mprotect(guard_region + guard_size - page_size, page_size, PROT_NONE);
}

/*
 * Copies len bytes to a MAXALIGNed spot flush against the end guard page
 * (at_end) or the start guard page; the slack is poisoned for ASan.
 */
static char *
guard_place(const char *src, size_t len, bool at_end)
{
	char	   *lo = guard_region + page_size;
	char	   *hi = guard_region + guard_size - page_size;
	char	   *dst;

	FUZZ_UNPOISON(lo, hi - lo);
	if (at_end)
		dst = (char *) TYPEALIGN_DOWN(MAXIMUM_ALIGNOF, (uintptr_t) (hi - len));
	else
		dst = lo;
	memcpy(dst, src, len);
	FUZZ_POISON(lo, dst - lo);
	FUZZ_POISON(dst + len, hi - (dst + len));
	return dst;
}

/* ----------------------------------------------------------------
 * The harness's own batch encoder (what heap_fill_tuple produces)
 * ----------------------------------------------------------------
 */
typedef struct Shape
{
	int16		attlen;			/* 0: a fixed length chosen per input */
	bool		attbyval;
	char		attalign;
	bool		bad;			/* no PostgreSQL type looks like this */
} Shape;

static const Shape shapes[] = {
	{1, true, TYPALIGN_CHAR},
	{2, true, TYPALIGN_SHORT},
	{4, true, TYPALIGN_INT},
	{8, true, TYPALIGN_DOUBLE},
	{0, false, TYPALIGN_CHAR},
	{0, false, TYPALIGN_SHORT},
	{0, false, TYPALIGN_INT},
	{0, false, TYPALIGN_DOUBLE},
	{-1, false, TYPALIGN_INT},
	{-1, false, TYPALIGN_DOUBLE},
	{-2, false, TYPALIGN_CHAR},
	/* layouts a batch must be refused with */
	{3, true, TYPALIGN_INT, true},
	{16, true, TYPALIGN_DOUBLE, true},
	{-3, false, TYPALIGN_CHAR, true},
};
#define NSHAPES lengthof(shapes)

/* What was encoded, to compare a decode with. */
typedef struct Cell
{
	bool		isnull;
	uint32		len;			/* payload bytes */
	uint32		src;			/* payload offset in the value arena */
} Cell;

static char *batch_buf;
static char *value_arena;
static Cell cells[MAX_ROWS][MAX_ATTS];
static uint32 built_offsets[MAX_ROWS];

/*
 * Ways the encoder can break one rule of the layout while keeping every
 * length consistent, so that only the broken rule tells the batch apart.
 */
typedef enum Lie
{
	LIE_NONE,
	LIE_UNALIGNED_4B,			/* a 4-byte varlena header without padding */
	LIE_NO_TERMINATOR,			/* a cstring without its NUL */
	LIE_EXTERNAL,				/* a TOAST pointer instead of a value */
	LIE_COMPRESSED,				/* an inline-compressed varlena header */
	LIE_COUNT
} Lie;

static Lie cur_lie;
static bool lie_told;

static uint64
align_nominal(uint64 off, char align)
{
	switch (align)
	{
		case TYPALIGN_CHAR:
			return off;
		case TYPALIGN_SHORT:
			return SHORTALIGN(off);
		case TYPALIGN_INT:
			return INTALIGN(off);
		default:
			return DOUBLEALIGN(off);
	}
}

static void
zero_to(char *buf, size_t *len, size_t to)
{
	while (*len < to)
		buf[(*len)++] = 0;
}

/*
 * Builds a valid batch of nrows rows of natts attributes into batch_buf;
 * returns its length, or 0 when it would not fit.
 */
static size_t
encode_batch(Reader *r, const RowBatchAttr *attrs, int natts, int nrows)
{
	RowBatchHeader hdr;
	size_t		len;
	size_t		arena = 0;
	int			row;

	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = ROW_BATCH_MAGIC;
	hdr.version = ROW_BATCH_VERSION;
	hdr.natts = (uint16) natts;
	hdr.row_count = (uint32) nrows;
	memcpy(batch_buf, &hdr, sizeof(hdr));
	len = sizeof(hdr);

	for (row = 0; row < nrows; row++)
	{
		size_t		start = len;
		bool		hasnull = false;
		size_t		hoff;
		size_t		data;
		uint16		infomask = 0;
		uint16		infomask2 = (uint16) natts;
		uint8		t_hoff;
		uint32		t_len;
		int			a;

		for (a = 0; a < natts; a++)
		{
			cells[row][a].isnull = !attrs[a].notnull && take(r, 5) == 0;
			hasnull |= cells[row][a].isnull;
		}
		hoff = MAXALIGN(offsetof(MinimalTupleData, t_bits) +
						(hasnull ? BITMAPLEN(natts) : 0));
		if (start + hoff + 64 > MAX_BATCH)
			return 0;
		built_offsets[row] = (uint32) start;
		memset(batch_buf + start, 0, hoff);
		if (hasnull)
		{
			bits8	   *bits = (bits8 *) (batch_buf + start + offsetof(MinimalTupleData, t_bits));

			infomask |= HEAP_HASNULL;
			for (a = 0; a < natts; a++)
				if (!cells[row][a].isnull)
					bits[a / 8] |= (bits8) (1 << (a % 8));
		}
		len = start + hoff;
		data = len;

		for (a = 0; a < natts; a++)
		{
			const RowBatchAttr *att = &attrs[a];
			Cell	   *c = &cells[row][a];
			uint32		n;
			uint32		i;

			if (c->isnull)
				continue;
			if (att->attlen > 0)
				n = (uint32) att->attlen;
			else if (att->attlen == -1)
				n = take(r, 300);
			else
				n = take(r, 40);
			if (len + n + 16 > MAX_BATCH || arena + n > MAX_BATCH)
				return 0;
			c->len = n;
			c->src = (uint32) arena;
			for (i = 0; i < n; i++)
			{
				uint8		b = take_byte(r);

				/* a cstring holds no NUL */
				value_arena[arena++] = (char) (att->attlen == -2 && b == 0 ? 1 : b);
			}

			if (att->attlen > 0)
			{
				zero_to(batch_buf, &len, data + align_nominal(len - data, att->attalign));
				memcpy(batch_buf + len, value_arena + c->src, n);
				len += n;
			}
			else if (att->attlen == -1)
			{
				infomask |= HEAP_HASVARWIDTH;
				if (cur_lie == LIE_EXTERNAL && !lie_told && n >= 2)
				{
					/* 0x01, a tag, then the value's bytes as the pointer */
					batch_buf[len++] = 0x01;
					memcpy(batch_buf + len, value_arena + c->src, n);
					len += n;
					lie_told = true;
				}
				else if (cur_lie == LIE_COMPRESSED && !lie_told && n >= 4)
				{
					zero_to(batch_buf, &len, data + align_nominal(len - data, att->attalign));
					SET_VARSIZE_COMPRESSED(batch_buf + len, n + VARHDRSZ);
					memcpy(batch_buf + len + VARHDRSZ, value_arena + c->src, n);
					len += n + VARHDRSZ;
					lie_told = true;
				}
				else if (cur_lie == LIE_UNALIGNED_4B && !lie_told &&
						 align_nominal(len - data, att->attalign) != len - data)
				{
					uint32		hdr;

					SET_VARSIZE(&hdr, n + VARHDRSZ);
					memcpy(batch_buf + len, &hdr, sizeof(hdr));
					memcpy(batch_buf + len + VARHDRSZ, value_arena + c->src, n);
					len += n + VARHDRSZ;
					lie_told = true;
				}
				else if (n + 1 <= VARATT_SHORT_MAX && take(r, 4) != 0)
				{
					/* a short varlena is never aligned */
					SET_VARSIZE_SHORT(batch_buf + len, n + 1);
					memcpy(batch_buf + len + 1, value_arena + c->src, n);
					len += n + 1;
				}
				else
				{
					zero_to(batch_buf, &len, data + align_nominal(len - data, att->attalign));
					SET_VARSIZE(batch_buf + len, n + VARHDRSZ);
					memcpy(batch_buf + len + VARHDRSZ, value_arena + c->src, n);
					len += n + VARHDRSZ;
				}
			}
			else
			{
				infomask |= HEAP_HASVARWIDTH;
				memcpy(batch_buf + len, value_arena + c->src, n);
				len += n;
				if (cur_lie == LIE_NO_TERMINATOR && !lie_told)
					lie_told = true;
				else
					batch_buf[len++] = '\0';
			}
		}

		t_len = (uint32) (len - start);
		t_hoff = (uint8) (hoff + MINIMAL_TUPLE_OFFSET);
		memcpy(batch_buf + start + offsetof(MinimalTupleData, t_len), &t_len, sizeof(t_len));
		memcpy(batch_buf + start + offsetof(MinimalTupleData, t_infomask2), &infomask2, sizeof(infomask2));
		memcpy(batch_buf + start + offsetof(MinimalTupleData, t_infomask), &infomask, sizeof(infomask));
		memcpy(batch_buf + start + offsetof(MinimalTupleData, t_hoff), &t_hoff, sizeof(t_hoff));
		zero_to(batch_buf, &len, MAXALIGN(len));
	}
	return len;
}

/* ----------------------------------------------------------------
 * PostgreSQL's deforming, trusting the bytes (slot_deform_heap_tuple)
 * ----------------------------------------------------------------
 */
static volatile uint32 sink;

/*
 * Deforms the MinimalTuple at tup with natts_desc columns, reads every
 * value whole, and when want is given compares it with the encoded cells
 * of row row.
 */
static void
reference_deform(const char *tup, const RowBatchAttr *attrs, int natts_desc,
				 bool compare, int row, bool slow)
{
	const MinimalTupleData *mt = (const MinimalTupleData *) tup;
	const char *tp = tup + mt->t_hoff - MINIMAL_TUPLE_OFFSET;
	bool		hasnulls = (mt->t_infomask & HEAP_HASNULL) != 0;
	const bits8 *bp = mt->t_bits;
	int			row_natts = (int) (mt->t_infomask2 & HEAP_NATTS_MASK);
	int			guaranteed = -1;
	uint32		off = 0;
	int			a;

	/*
	 * As the JIT-compiled deformer: columns up to the last "present" one are
	 * taken to be in the row whatever its natts says, and a NOT NULL
	 * column's null bit is not looked at.  A slow row is deformed as
	 * heap_deform_tuple does, which follows the bitmap and natts.
	 */
	for (a = 0; a < natts_desc && !slow; a++)
		if (attrs[a].present)
			guaranteed = a;

	for (a = 0; a < natts_desc; a++)
	{
		const RowBatchAttr *att = &attrs[a];
		const char *p;
		uint32		n;
		uint32		i;
		uint32		sum = 0;

		if (a > guaranteed && a >= row_natts)
			break;				/* the column's missing value */
		if ((slow || !att->notnull) && hasnulls && att_isnull(a, bp))
		{
			FUZZ_CHECK(!compare || cells[row][a].isnull,
					   "row %d column %d decodes as NULL", row, a);
			continue;
		}
		FUZZ_CHECK(!compare || !cells[row][a].isnull,
				   "row %d column %d decodes as not NULL", row, a);
		if (att->attlen == -1)
			off = att_align_pointer(off, att->attalign, -1, tp + off);
		else
			off = att_align_nominal(off, att->attalign);
		p = tp + off;
		/* varatt.h: VARSIZE_4B() only on aligned data */
		FUZZ_CHECK(att->attlen != -1 || VARATT_IS_1B(p) ||
				   (uintptr_t) p % ALIGNOF_INT == 0,
				   "row %d column %d: a 4-byte varlena header is misaligned", row, a);
		if (att->attbyval)
		{
			/* fetch_att: a load of attlen bytes */
			switch (att->attlen)
			{
				case 1:
					sink += *(const uint8 *) p;
					break;
				case 2:
					sink += *(const uint16 *) p;
					break;
				case 4:
					sink += *(const uint32 *) p;
					break;
				default:
					sink += (uint32) *(const uint64 *) p;
					break;
			}
		}
		off = att_addlength_pointer(off, att->attlen, p);

		/* what a consumer of the Datum reads */
		if (att->attlen > 0)
		{
			n = att->attlen;
		}
		else if (att->attlen == -1)
		{
			n = VARSIZE_ANY_EXHDR(p);
			p = VARDATA_ANY(p);
		}
		else
			n = (uint32) strlen(p);
		for (i = 0; i < n; i++)
			sum += (uint8) p[i];
		sink += sum;
		if (compare)
		{
			const Cell *c = &cells[row][a];

			FUZZ_CHECK(n == c->len && memcmp(p, value_arena + c->src, n) == 0,
					   "row %d column %d decodes to other bytes", row, a);
		}
	}
}

/*
 * The read of a scan without a filter (row_batch_read_columns): rows
 * indexed by length, then each read as far as some column.  It never
 * reads outside the batch; on a batch the full check accepts it accepts
 * every row and reads the encoded values.
 */
static void
partial_read(const char *placed, size_t len, const RowBatchAttr *attrs,
			 int natts_desc, uint32 expected_rows, bool accepted,
			 bool compare)
{
	static uint32 offsets[MAX_BATCH / ROW_BATCH_MIN_ROW_SIZE + 1];
	uint8		masks[MAX_ATTS];
	Datum		values[MAX_ATTS];
	bool		isnull[MAX_ATTS];
	const char *problem;
	uint32		k;

	if (natts_desc == 0 || row_batch_layout(attrs, natts_desc, masks) != NULL)
		return;
	problem = row_batch_index(placed, len, attrs, natts_desc, expected_rows,
							  offsets);
	for (k = 0; problem == NULL && k < expected_rows; k++)
	{
		int			upto = 1 + (int) (k % (uint32) natts_desc);
		bool		lacks;
		int			a;

		problem = row_batch_read_columns(placed, len, attrs, masks, offsets[k],
										 upto, values, isnull, &lacks);
		if (problem != NULL || lacks)
			continue;
		for (a = 0; a < upto; a++)
		{
			const RowBatchAttr *att = &attrs[a];
			char		byval[8];
			const char *p;
			uint32		n;
			uint32		i;

			FUZZ_CHECK(!compare || isnull[a] == cells[k][a].isnull,
					   "row %u column %d: a partial read disagrees on NULL", k, a);
			if (isnull[a])
				continue;
			if (att->attbyval)
			{
				int64		v = DatumGetInt64(values[a]);
				int32		v4 = (int32) v;
				int16		v2 = (int16) v;

				byval[0] = (char) v;
				if (att->attlen == 2)
					memcpy(byval, &v2, 2);
				else if (att->attlen == 4)
					memcpy(byval, &v4, 4);
				else if (att->attlen == 8)
					memcpy(byval, &v, 8);
				p = byval;
				n = att->attlen;
			}
			else if (att->attlen > 0)
			{
				p = DatumGetPointer(values[a]);
				n = att->attlen;
			}
			else if (att->attlen == -1)
			{
				p = VARDATA_ANY(DatumGetPointer(values[a]));
				n = VARSIZE_ANY_EXHDR(DatumGetPointer(values[a]));
			}
			else
			{
				p = DatumGetPointer(values[a]);
				n = (uint32) strlen(p);
			}
			for (i = 0; i < n; i++)
				sink += (uint8) p[i];
			FUZZ_CHECK(!compare || (n == cells[k][a].len &&
									memcmp(p, value_arena + cells[k][a].src, n) == 0),
					   "row %u column %d: a partial read gives other bytes", k, a);
		}
	}
	FUZZ_CHECK(!accepted || problem == NULL,
			   "a partial read refuses a batch the full check accepts: %s",
			   problem);
}

/* ----------------------------------------------------------------
 * The case
 * ----------------------------------------------------------------
 */
static uint32 offsets_a[MAX_BATCH / ROW_BATCH_MIN_ROW_SIZE + 1];
static uint32 offsets_b[MAX_BATCH / ROW_BATCH_MIN_ROW_SIZE + 1];
static char *mutant;

static uint64 stat_valid;
static uint64 stat_lies;
static uint64 stat_mutants;
static uint64 stat_accepted;
static bool last_accepted;
static uint32 last_slow_rows;

/* Checks batch[0 .. len) in place; deforms every row when accepted. */
static void
check_and_deform(const char *batch, size_t len, const RowBatchAttr *attrs,
				 int natts_desc, uint32 expected_rows, bool at_end,
				 bool must_accept, bool compare)
{
	char	   *placed = guard_place(batch, len, at_end);
	const char *problem;
	const char *again;
	uint32		i;

	problem = row_batch_check(placed, len, attrs, natts_desc, expected_rows,
							  offsets_a);
	last_slow_rows = 0;
	again = row_batch_check(placed, len, attrs, natts_desc, expected_rows,
							offsets_b);
	FUZZ_CHECK((problem == NULL) == (again == NULL) &&
			   (problem == NULL || strcmp(problem, again) == 0),
			   "the checker is not deterministic");

	/*
	 * The lazy path of a fetch by TID: the rows' lengths first, then each
	 * row alone; it accepts exactly the batches the full check accepts,
	 * with the same offsets and flags.
	 */
	{
		const char *lazy = row_batch_index(placed, len, attrs, natts_desc,
										   expected_rows, offsets_b);
		uint8		layout[MaxTupleAttributeNumber];
		bool		layout_ok = row_batch_layout(attrs, natts_desc,
												 layout) == NULL;
		uint32		k;

		for (k = 0; lazy == NULL && k < expected_rows; k++)
		{
			FUZZ_CHECK(offsets_b[k] & ROW_BATCH_UNCHECKED,
					   "row %u is not flagged unchecked", k);
			/* the caller's layout, or checked again (odd rows) */
			lazy = row_batch_check_one(placed, len, attrs,
									   layout_ok && k % 2 == 0 ? layout : NULL,
									   natts_desc, &offsets_b[k]);
			FUZZ_CHECK(lazy != NULL || problem != NULL ||
					   offsets_b[k] == offsets_a[k],
					   "row %u: the lazy check gives another offset", k);
		}
		FUZZ_CHECK((lazy == NULL) == (problem == NULL),
				   "the lazy check %s a batch the full check %s",
				   lazy == NULL ? "accepts" : "refuses",
				   problem == NULL ? "accepts" : "refuses");
	}
	partial_read(placed, len, attrs, natts_desc, expected_rows, problem == NULL,
				 compare);
	if (must_accept)
		FUZZ_CHECK(problem == NULL, "a valid batch is refused: %s", problem);
	last_accepted = problem == NULL;
	if (problem != NULL)
		return;

	stat_accepted++;
	for (i = 0; i < expected_rows; i++)
	{
		uint32		t_len;
		uint32		o = ROW_BATCH_OFFSET(offsets_a[i]);
		bool		slow = (offsets_a[i] & ROW_BATCH_SLOW_ROW) != 0;

		FUZZ_CHECK(offsets_a[i] == offsets_b[i], "row offsets differ between runs");
		FUZZ_CHECK(o % MAXIMUM_ALIGNOF == 0 &&
				   o >= ROW_BATCH_HEADER_SIZE &&
				   (i == 0 || o > ROW_BATCH_OFFSET(offsets_a[i - 1])) &&
				   o + ROW_BATCH_MIN_ROW_SIZE <= len,
				   "row %u has an impossible offset %u", i, o);
		memcpy(&t_len, placed + o, sizeof(t_len));
		FUZZ_CHECK(o + (uint64) t_len <= len, "row %u runs past the batch", i);
		/* a truthful row keeps every NOT NULL promise */
		FUZZ_CHECK(!compare || !slow, "row %u of a valid batch is slow", i);
		last_slow_rows += slow ? 1 : 0;
		reference_deform(placed + o, attrs, natts_desc, compare, (int) i, slow);
	}
}

static void
mutate(Reader *r, char *buf, size_t *len)
{
	int			n = 1 + (int) take(r, 8);
	int			k;

	for (k = 0; k < n && *len > 0; k++)
	{
		uint32		pos = take(r, (uint32) *len);

		switch (take(r, 8))
		{
			case 0:
			case 1:
			case 2:
				buf[pos] ^= (char) (1 << take(r, 8));
				break;
			case 3:
				buf[pos] = (char) take_byte(r);
				break;
			case 4:
				{
					/* an interesting 16- or 32-bit value */
					static const uint32 vals[] = {0, 1, 0x7F, 0x80, 0xFF, 0x7FF, 0xFFFF,
					0x7FFFFFFF, 0xFFFFFFFF, 8, 16, 24, 4, 3};
					uint32		v = vals[take(r, lengthof(vals))];

					memcpy(buf + pos, &v, Min(4, *len - pos));
					break;
				}
			case 5:
				*len = pos;		/* truncate */
				break;
			case 6:
				if (*len + 8 <= MAX_BATCH)
				{
					memset(buf + *len, take_byte(r), 8);
					*len += 8;
				}
				break;
			default:
				/* a row header field */
				buf[pos - pos % MAXIMUM_ALIGNOF + take(r, 16) % MAXIMUM_ALIGNOF] = (char) take_byte(r);
				break;
		}
	}
}

/* Gives the batch and every row another number of columns. */
static void
rewrite_natts(char *buf, size_t len, int nrows, uint16 natts)
{
	int			row;

	memcpy(buf + offsetof(RowBatchHeader, natts), &natts, sizeof(natts));
	for (row = 0; row < nrows; row++)
	{
		uint16		infomask2;
		size_t		at = built_offsets[row] + offsetof(MinimalTupleData, t_infomask2);

		if (at + sizeof(infomask2) > len)
			break;
		memcpy(&infomask2, buf + at, sizeof(infomask2));
		infomask2 = (infomask2 & ~HEAP_NATTS_MASK) | (natts & HEAP_NATTS_MASK);
		memcpy(buf + at, &infomask2, sizeof(infomask2));
	}
}

static void
fuzz_one(const uint8 *data, size_t len)
{
	Reader		r = {data, len, 0};
	RowBatchAttr *attrs;
	int			natts_desc = (int) take(&r, MAX_ATTS + 1);
	int			natts = natts_desc - (int) take(&r, 3);
	int			nrows = (int) take(&r, MAX_ROWS + 1);
	bool		bad_layout = false;
	size_t		blen;
	int			a;
	int			m;

	cur_data = data;
	cur_len = len;
	if (natts < 0)
		natts = 0;
	/* exactly natts_desc entries: reading past them is an ASan error */
	attrs = malloc(sizeof(RowBatchAttr) * Max(natts_desc, 1));
	for (a = 0; a < natts_desc; a++)
	{
		/* a bad shape now and then */
		const Shape *s = &shapes[take(&r, take(&r, 16) == 0 ? NSHAPES : NSHAPES - 3)];

		attrs[a].attlen = s->attlen != 0 ? s->attlen : (int16) (1 + take(&r, 24));
		attrs[a].attbyval = s->attbyval;
		attrs[a].attalign = s->attalign;
		attrs[a].notnull = take(&r, 4) == 0;
		/* columns the batch's rows lack have a missing value */
		attrs[a].present = attrs[a].notnull && a < natts && take(&r, 2) == 0;
		if (s->bad && a < natts)
			bad_layout = true;
	}
	if (nrows == 0)
		nrows = 1;

	cur_lie = take(&r, 4) == 0 ? (Lie) (1 + take(&r, LIE_COUNT - 1)) : LIE_NONE;
	lie_told = false;
	blen = encode_batch(&r, attrs, natts, nrows);
	if (blen == 0)
	{
		free(attrs);
		return;
	}
	if (lie_told)
	{
		/*
		 * Safe to deform if accepted; a TOAST pointer or a compressed value
		 * must always be refused.
		 */
		stat_lies++;
		check_and_deform(batch_buf, blen, attrs, natts_desc, (uint32) nrows,
						 take(&r, 2) == 0, false, false);
		FUZZ_CHECK((cur_lie != LIE_EXTERNAL && cur_lie != LIE_COMPRESSED) ||
				   !last_accepted,
				   "a batch breaking rule %d is accepted", (int) cur_lie);
	}
	else if (bad_layout)
	{
		check_and_deform(batch_buf, blen, attrs, natts_desc, (uint32) nrows,
						 take(&r, 2) == 0, false, false);
		FUZZ_CHECK(!last_accepted, "a batch with an impossible column layout is accepted");
	}
	else
	{
		stat_valid++;
		check_and_deform(batch_buf, blen, attrs, natts_desc, (uint32) nrows,
						 take(&r, 2) == 0, true, true);
	}

	/*
	 * The same batch read with a NOT NULL column (without a missing value)
	 * that its rows lack: the JIT deformer would read it from the row, so
	 * every row must be slow.
	 */
	if (!lie_told && natts < natts_desc)
	{
		int			lacking = natts + (int) take(&r, (uint32) (natts_desc - natts));
		RowBatchAttr saved = attrs[lacking];

		attrs[lacking].notnull = attrs[lacking].present = true;
		check_and_deform(batch_buf, blen, attrs, natts_desc, (uint32) nrows,
						 take(&r, 2) == 0, false, false);
		FUZZ_CHECK(!last_accepted || last_slow_rows == (uint32) nrows,
				   "rows lacking NOT NULL column %d are not all slow", lacking);
		attrs[lacking] = saved;
	}

	/* mutants of it, each also with a different expected row count */
	for (m = 0; m < 4 && r.pos < r.len; m++)
	{
		size_t		mlen = blen;
		uint32		expect = (uint32) nrows;

		memcpy(mutant, batch_buf, blen);
		if (take(&r, 6) == 0)
			rewrite_natts(mutant, mlen, nrows, (uint16) take(&r, MAX_ATTS + 3));
		else
			mutate(&r, mutant, &mlen);
		if (take(&r, 8) == 0)
			expect = take(&r, MAX_ROWS + 2);
		stat_mutants++;
		check_and_deform(mutant, mlen, attrs, natts_desc, expect,
						 take(&r, 2) == 0, false, false);
	}

	/* raw input bytes as a batch, for good measure */
	if (len >= ROW_BATCH_HEADER_SIZE)
	{
		size_t		rlen = Min(len, (size_t) MAX_BATCH);

		memcpy(mutant, data, rlen);
		check_and_deform(mutant, rlen, attrs, natts_desc,
						 (uint32) (data[0] % 8), data[1] % 2 == 0, false, false);
	}
	free(attrs);
}

static void
setup(void)
{
	guard_setup();
	batch_buf = malloc(MAX_BATCH + 64);
	value_arena = malloc(MAX_BATCH + 64);
	mutant = malloc(MAX_BATCH + 64);
	if (batch_buf == NULL || value_arena == NULL || mutant == NULL)
	{
		printf("fuzz: FAILED (out of memory)\n");
		exit(1);
	}
}

#ifdef FUZZ_LIBFUZZER

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready = false;

	if (!ready)
	{
		setup();
		ready = true;
	}
	cur_iteration++;
	fuzz_one(data, Min(size, (size_t) MAX_INPUT));
	return 0;
}

#else

/* splitmix64: the driver's random inputs, deterministic from --seed */
static uint64
next_random(uint64 *state)
{
	uint64		z = (*state += UINT64CONST(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

int
main(int argc, char **argv)
{
	double		seconds = 10;
	uint64		seed = (uint64) time(NULL);
	uint64		iterations = 0;
	const char *replay = NULL;
	uint8	   *input = malloc(MAX_INPUT);
	time_t		start = time(NULL);
	int			i;

	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
			iterations = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--replay") == 0 && i + 1 < argc)
			replay = argv[++i];
		else
		{
			printf("fuzz: FAILED (unknown argument %s)\n", argv[i]);
			return 2;
		}
	}
	setup();

	if (replay != NULL)
	{
		FILE	   *f = fopen(replay, "rb");
		size_t		n;

		if (f == NULL)
		{
			printf("fuzz: FAILED (cannot open %s)\n", replay);
			return 2;
		}
		n = fread(input, 1, MAX_INPUT, f);
		fclose(f);
		fuzz_one(input, n);
		printf("fuzz: ok (1 iterations)\n");
		return 0;
	}

	printf("fuzz: rowbatch, seed " UINT64_FORMAT "\n", seed);
	for (cur_iteration = 0;; cur_iteration++)
	{
		uint64		state = seed ^ (cur_iteration * UINT64CONST(0x2545F4914F6CDD1D));
		size_t		n = 16 + next_random(&state) % 4096;
		size_t		k;

		if (iterations > 0 ? cur_iteration >= iterations :
			(cur_iteration % 256 == 0 && difftime(time(NULL), start) >= seconds))
			break;
		for (k = 0; k < n; k += 8)
		{
			uint64		v = next_random(&state);

			memcpy(input + k, &v, Min(8, n - k));
		}
		fuzz_one(input, n);
	}
	printf("fuzz: rowbatch: " UINT64_FORMAT " valid batches, " UINT64_FORMAT
		   " rule-breaking batches, " UINT64_FORMAT " mutants, " UINT64_FORMAT
		   " batches accepted and deformed\n",
		   stat_valid, stat_lies, stat_mutants, stat_accepted);
	printf("fuzz: ok (" UINT64_FORMAT " iterations)\n", cur_iteration);
	return 0;
}

#endif							/* FUZZ_LIBFUZZER */
