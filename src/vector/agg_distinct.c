/*-------------------------------------------------------------------------
 *
 * agg_distinct.c
 *	  The value sets of count(DISTINCT x) (agg_distinct.h).
 *
 *	  In a parallel aggregation of the node's own (vector_agg.h: EXPORT in
 *	  every participant, COMBINE in the leader) each participant builds
 *	  the sets of its rows and the leader unites them.  Sent as arrays of
 *	  values and inserted one by one, the sets made the leader's serial
 *	  share nearly the serial aggregation's whole work again: count(DISTINCT
 *	  user_id) in six groups of the benchmark's events table (its Q10) sent
 *	  2.4 MB of values from each participant, 0.8 million inserts for the
 *	  leader.  A set dense in its range of values (ids, dates) goes as a
 *	  bitmap of that range instead, never larger than the array would be,
 *	  and the leader ORs it in word by word; its count is a population
 *	  count.  Values of the types taken (agg_kernels.c: identical_when_equal
 *	  and bool) are compared as the int64 their Datum holds.
 *
 *	  Exports go from one participant of a query to another, so their
 *	  layout is private to one build: a header, then the values or the
 *	  bitmap's words.
 *
 *-------------------------------------------------------------------------
 */
/*
 * Server code and, with FRONTEND defined, the fuzz harness (test/fuzz),
 * which checks its counts against a reference: only the varlena part of
 * compat.h, and allocation through palloc alone.
 */
#include "postgres.h"

#include "compat/compat_varatt.h"

#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "vector/agg_distinct.h"
#include "vector/agg_grouping.h"

#define EXPORT_ARRAY	1
#define EXPORT_BITMAP	2

/*
 * An export's header, after the varlena header: kind, then the bitmap's
 * first value (0 for an array), then the count of values or of 64-bit
 * words, packed so that the values or words that follow sit 8-aligned in
 * the palloc'd bytea.  Read back with memcpy: a merge gets the bytes from
 * a tuple, at any alignment.
 */
typedef struct DistinctExport
{
	uint32		kind;
	int64		base;
	uint64		count;
} DistinctExport;

#define EXPORT_HEADER_SIZE	(sizeof(uint32) + sizeof(int64) + sizeof(uint64))

static void
write_header(char *out, const DistinctExport *h)
{
	memcpy(out, &h->kind, sizeof(uint32));
	memcpy(out + sizeof(uint32), &h->base, sizeof(int64));
	memcpy(out + sizeof(uint32) + sizeof(int64), &h->count, sizeof(uint64));
}

static void
read_header(const char *in, DistinctExport *h)
{
	memcpy(&h->kind, in, sizeof(uint32));
	memcpy(&h->base, in + sizeof(uint32), sizeof(int64));
	memcpy(&h->count, in + sizeof(uint32) + sizeof(int64), sizeof(uint64));
}

/*
 * A merged bitmap may span at most this many times the words of the two
 * it unites; beyond that the values are inserted into the hash set.
 */
#define BITMAP_SPREAD	4

/* A hash set this full is considered for a bitmap (distinct_set_add). */
#define DENSE_MIN_VALUES	64

/*
 * Every allocation: the harness's allocator has palloc alone, and a set's
 * hash table may pass 1 GB (count(DISTINCT) of 100 million values).
 */
static void *
set_alloc(Size size, bool zero)
{
#ifdef FRONTEND
	void	   *p = palloc(size);

	if (zero)
		memset(p, 0, size);
	return p;
#else
	return palloc_extended(size, MCXT_ALLOC_HUGE | (zero ? MCXT_ALLOC_ZERO : 0));
#endif
}

static void
hash_insert(DistinctSet *set, Datum v)
{
	uint32		mask;
	uint32		pos;

	if ((set->n + 1) * 4 > set->capacity * 3)
	{
		DistinctSet bigger = *set;
		uint32		i;

		bigger.capacity = Max(set->capacity * 2, 64);
		bigger.n = 0;
		bigger.slots = set_alloc(sizeof(Datum) * bigger.capacity, false);
		bigger.used = set_alloc(bigger.capacity, true);
		for (i = 0; i < set->capacity; i++)
			if (set->used[i])
				hash_insert(&bigger, set->slots[i]);
		if (set->slots != NULL)
		{
			pfree(set->slots);
			pfree(set->used);
		}
		*set = bigger;
	}
	mask = set->capacity - 1;
	pos = agg_hash_datum(v) & mask;
	while (set->used[pos])
	{
		if (set->slots[pos] == v)
			return;
		pos = (pos + 1) & mask;
	}
	set->used[pos] = true;
	set->slots[pos] = v;
	set->n++;
}

static inline int64
value_of(Datum d)
{
	return (int64) d;
}

/*
 * The 64-aligned first value and the words of a bitmap of [lo, hi], or
 * false when the values are too near the ends of int64 for one.
 */
static bool
bitmap_range(int64 lo, int64 hi, int64 *base, uint64 *nwords)
{
	int64		r;

	if (lo > hi || lo < PG_INT64_MIN + 64 || hi > PG_INT64_MAX - 64)
		return false;
	r = lo % 64;
	if (r < 0)
		r += 64;
	*base = lo - r;
	*nwords = ((uint64) hi - (uint64) *base) / 64 + 1;
	return true;
}

static inline void
set_bit(uint64 *words, int64 base, int64 v)
{
	uint64		off = (uint64) v - (uint64) base;

	words[off / 64] |= UINT64CONST(1) << (off % 64);
}

/*
 * Makes the set's bitmap cover nwords words from base (a multiple of 64),
 * unless the bitmap would then be mostly empty: false.
 */
static bool
cover_bits(DistinctSet *set, int64 base, uint64 nwords)
{
	int64		new_base;
	uint64		end;
	uint64		new_words;
	uint64	   *words;

	if (set->bits == NULL)
	{
		if (nwords > MaxAllocSize / sizeof(uint64))
			return false;
		set->bits = set_alloc(nwords * sizeof(uint64), true);
		set->bits_base = base;
		set->nwords = nwords;
		return true;
	}
	new_base = Min(set->bits_base, base);
	end = Max((uint64) set->bits_base - (uint64) new_base + set->nwords * 64,
			  (uint64) base - (uint64) new_base + nwords * 64);
	new_words = end / 64;
	if (new_words == set->nwords && new_base == set->bits_base)
		return true;
	if (new_words > BITMAP_SPREAD * (set->nwords + nwords) ||
		new_words > MaxAllocSize / sizeof(uint64))
		return false;
	words = set_alloc(new_words * sizeof(uint64), true);
	memcpy(words + ((uint64) set->bits_base - (uint64) new_base) / 64,
		   set->bits, set->nwords * sizeof(uint64));
	pfree(set->bits);
	set->bits = words;
	set->bits_base = new_base;
	set->nwords = new_words;
	return true;
}

/* Widens [*lo, *hi] to take in the values of the set's hash set. */
static void
widen_to_hashed(const DistinctSet *set, int64 *lo, int64 *hi)
{
	uint32		i;

	for (i = 0; i < set->capacity; i++)
		if (set->used[i])
		{
			*lo = Min(*lo, value_of(set->slots[i]));
			*hi = Max(*hi, value_of(set->slots[i]));
		}
}

/* Sets v's bit if the set's bitmap spans it. */
static inline bool
set_bit_in_range(DistinctSet *set, int64 v)
{
	uint64		off = (uint64) v - (uint64) set->bits_base;

	if (set->bits == NULL || off / 64 >= set->nwords)
		return false;
	set->bits[off / 64] |= UINT64CONST(1) << (off % 64);
	return true;
}

/*
 * Moves the hash set's values into the bitmap when a bitmap of their range
 * takes no more words than they are values (the rule exports follow), and
 * the bitmap already held can be stretched to it (cover_bits); false when
 * they stay.
 */
static bool
hash_to_bits(DistinctSet *set)
{
	int64		lo = PG_INT64_MAX;
	int64		hi = PG_INT64_MIN;
	int64		base;
	uint64		nwords;
	uint32		i;

	widen_to_hashed(set, &lo, &hi);
	if (!bitmap_range(lo, hi, &base, &nwords) || nwords > set->n ||
		!cover_bits(set, base, nwords))
		return false;
	for (i = 0; i < set->capacity; i++)
		if (set->used[i])
			set_bit_in_range(set, value_of(set->slots[i]));
	pfree(set->slots);
	pfree(set->used);
	set->slots = NULL;
	set->used = NULL;
	set->n = 0;
	set->capacity = 0;
	return true;
}

/*
 * A value goes to the bitmap when it spans the value, else to the hash
 * set.  Whenever the hash set is full, from DENSE_MIN_VALUES values on,
 * dense values move to the bitmap first: ids, dates and user numbers then
 * cost a bit each, and a participant of a parallel aggregation, which
 * meets about as many distinct values as the whole scan, sets bits
 * instead of growing and probing a hash set as large as the serial one
 * (count(DISTINCT user_id) of the benchmark's Q10 took 30 ns a row).
 */
void
distinct_set_add(DistinctSet *set, Datum value)
{
	int64		v = value_of(value);

	if (set_bit_in_range(set, v))
		return;
	if (set->n >= DENSE_MIN_VALUES && (set->n + 1) * 4 > set->capacity * 3 &&
		hash_to_bits(set) && set_bit_in_range(set, v))
		return;
	hash_insert(set, value);
}

/* Is v a bit of the set's bitmap? */
static bool
in_bits(const DistinctSet *set, int64 v)
{
	uint64		off;

	if (set->bits == NULL || v < set->bits_base)
		return false;
	off = (uint64) v - (uint64) set->bits_base;
	return off / 64 < set->nwords &&
		(set->bits[off / 64] & (UINT64CONST(1) << (off % 64))) != 0;
}

int64
distinct_set_count(const DistinctSet *set)
{
	int64		count = 0;
	uint32		i;

	if (set->bits == NULL)
		return set->n;
	count = (int64) pg_popcount((const char *) set->bits,
								set->nwords * sizeof(uint64));
	for (i = 0; i < set->capacity; i++)
		if (set->used[i] && !in_bits(set, value_of(set->slots[i])))
			count++;
	return count;
}

bytea *
distinct_set_export(const DistinctSet *set)
{
	int64		count = distinct_set_count(set);
	int64		lo = PG_INT64_MAX;
	int64		hi = PG_INT64_MIN;
	DistinctExport h;
	bytea	   *result;
	Size		size;
	uint32		i;

	memset(&h, 0, sizeof(h));
	widen_to_hashed(set, &lo, &hi);
	if (set->bits != NULL)
	{
		lo = Min(lo, set->bits_base);
		hi = Max(hi, set->bits_base + (int64) (set->nwords * 64 - 1));
	}

	if (count >= 64 && bitmap_range(lo, hi, &h.base, &h.count) &&
		h.count <= (uint64) count)	/* 8 bytes a word, 8 a value */
	{
		uint64	   *words;

		h.kind = EXPORT_BITMAP;
		size = VARHDRSZ + EXPORT_HEADER_SIZE + h.count * sizeof(uint64);
		result = set_alloc(size, true);	/* no larger than the array */
		words = (uint64 *) (VARDATA(result) + EXPORT_HEADER_SIZE);
		for (i = 0; i < set->capacity; i++)
			if (set->used[i])
				set_bit(words, h.base, value_of(set->slots[i]));
		if (set->bits != NULL)
		{
			uint64		at = ((uint64) set->bits_base - (uint64) h.base) / 64;
			uint64		w;

			for (w = 0; w < set->nwords; w++)
				words[at + w] |= set->bits[w];
		}
	}
	else
	{
		Datum	   *values;
		uint64		w;

		h.kind = EXPORT_ARRAY;
		h.count = (uint64) count;
		size = VARHDRSZ + EXPORT_HEADER_SIZE + h.count * sizeof(Datum);
		result = palloc(size);	/* a bytea: below 1 GB */
		values = (Datum *) (VARDATA(result) + EXPORT_HEADER_SIZE);
		for (i = 0; i < set->capacity; i++)
			if (set->used[i] && !in_bits(set, value_of(set->slots[i])))
				*values++ = set->slots[i];
		for (w = 0; set->bits != NULL && w < set->nwords; w++)
		{
			uint64		word = set->bits[w];

			while (word != 0)
			{
				int			b = pg_rightmost_one_pos64(word);

				*values++ = (Datum) (set->bits_base + (int64) (w * 64 + b));
				word &= word - 1;
			}
		}
	}
	SET_VARSIZE(result, size);
	write_header(VARDATA(result), &h);
	return result;
}

bool
distinct_set_merge(DistinctSet *set, const char *data, Size len)
{
	DistinctExport h;
	uint64		w;

	if (len < EXPORT_HEADER_SIZE)
		return false;
	read_header(data, &h);
	data += EXPORT_HEADER_SIZE;
	len -= EXPORT_HEADER_SIZE;

	if (h.kind == EXPORT_ARRAY)
	{
		uint64		i;

		if (len % sizeof(Datum) != 0 || len / sizeof(Datum) != h.count)
			return false;
		for (i = 0; i < h.count; i++)
		{
			Datum		v;

			memcpy(&v, data + i * sizeof(Datum), sizeof(Datum));
			hash_insert(set, v);
		}
		return true;
	}

	if (h.kind != EXPORT_BITMAP || h.count == 0 || h.base % 64 != 0 ||
		len % sizeof(uint64) != 0 || len / sizeof(uint64) != h.count ||
		h.base < PG_INT64_MIN + 64 ||
		h.count > ((uint64) PG_INT64_MAX - (uint64) h.base) / 64)
		return false;

	if (!cover_bits(set, h.base, h.count))
	{
		/* far from the bitmap so far: values, one by one */
		for (w = 0; w < h.count; w++)
		{
			uint64		word;

			memcpy(&word, data + w * sizeof(uint64), sizeof(uint64));
			while (word != 0)
			{
				int			b = pg_rightmost_one_pos64(word);

				hash_insert(set, (Datum) (h.base + (int64) (w * 64 + b)));
				word &= word - 1;
			}
		}
		return true;
	}
	{
		uint64		at = ((uint64) h.base - (uint64) set->bits_base) / 64;

		for (w = 0; w < h.count; w++)
		{
			uint64		word;

			memcpy(&word, data + w * sizeof(uint64), sizeof(uint64));
			set->bits[at + w] |= word;
		}
	}
	return true;
}
