/*-------------------------------------------------------------------------
 *
 * agg_grouping.c
 *	  Grouping by one column through an open-addressing hash table of the
 *	  groups' keys: pass-by-value keys compare as integers, text-like keys
 *	  (text, varchar, bpchar under a deterministic collation, where
 *	  equality is equality of bytes, ignoring bpchar's trailing blanks) by
 *	  their bytes.  A group keeps the first value seen as its key, as
 *	  PostgreSQL's HashAggregate does.
 *
 *	  Rows with a NULL key form one group of their own.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "vector/agg_grouping.h"

typedef struct HashGrouping
{
	AggGrouping base;
	MemoryContext cxt;
	bool		byval;
	bool		blank_padded;	/* bpchar: trailing blanks do not count */

	/* slots hold group + 1 (0: empty); capacity is a power of two */
	uint32	   *slots;
	uint32		capacity;

	/* per group: its key (a copy for varlena keys) and the key's hash */
	Datum	   *keys;
	uint32	   *hashes;
	uint32		allocated;
	int64		null_group;		/* -1: no NULL key seen yet */

	/* the last key looked up: runs of equal keys skip the table */
	Datum		last_key;
	uint32		last_group;
	bool		have_last;
} HashGrouping;

#define INITIAL_CAPACITY 64

bool
agg_grouping_supports(Oid type, Oid collation)
{
	switch (type)
	{
		case BOOLOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			/* only there is equality the equality of bytes */
			return OidIsValid(collation) &&
				(collation == C_COLLATION_OID ||
				 get_collation_isdeterministic(collation));
		default:
			return false;
	}
}

static inline uint32
hash_datum(Datum v)
{
	uint64		h = (uint64) v;

	/* a 64-bit finalizer: spreads dense integer keys over the table */
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return (uint32) h;
}

/* the bytes a text-like key compares by */
static inline void
key_bytes(const HashGrouping *g, Datum v, const char **data, int *len)
{
	const char *p = VARDATA_ANY(DatumGetPointer(v));
	int			n = VARSIZE_ANY_EXHDR(DatumGetPointer(v));

	if (g->blank_padded)
		while (n > 0 && p[n - 1] == ' ')
			n--;
	*data = p;
	*len = n;
}

static void
grow_groups(HashGrouping *g)
{
	uint32		n = g->allocated == 0 ? INITIAL_CAPACITY : g->allocated * 2;

	if (g->allocated == 0)
	{
		g->keys = MemoryContextAlloc(g->cxt, sizeof(Datum) * n);
		g->hashes = MemoryContextAlloc(g->cxt, sizeof(uint32) * n);
	}
	else
	{
		g->keys = repalloc_huge(g->keys, sizeof(Datum) * n);
		g->hashes = repalloc_huge(g->hashes, sizeof(uint32) * n);
	}
	g->allocated = n;
}

/* Doubles the table and places every group again. */
static void
grow_table(HashGrouping *g)
{
	uint32		capacity = g->capacity * 2;
	uint32		mask = capacity - 1;
	uint32		i;

	pfree(g->slots);
	g->slots = MemoryContextAllocExtended(g->cxt, sizeof(uint32) * capacity,
											 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	g->capacity = capacity;
	for (i = 0; i < g->base.ngroups; i++)
	{
		uint32		pos;

		if ((int64) i == g->null_group)
			continue;
		pos = g->hashes[i] & mask;
		while (g->slots[pos] != 0)
			pos = (pos + 1) & mask;
		g->slots[pos] = i + 1;
	}
}

static uint32
new_group(HashGrouping *g, Datum key, uint32 hash)
{
	uint32		group = g->base.ngroups;

	if (group == g->allocated)
		grow_groups(g);
	g->keys[group] = key;
	g->hashes[group] = hash;
	g->base.ngroups++;
	return group;
}

static uint32
lookup_byval(HashGrouping *g, Datum key)
{
	uint32		hash = hash_datum(key);
	uint32		mask = g->capacity - 1;
	uint32		pos = hash & mask;
	uint32		group;

	for (;;)
	{
		uint32		slot = g->slots[pos];

		if (slot == 0)
			break;
		if (g->keys[slot - 1] == key)
			return slot - 1;
		pos = (pos + 1) & mask;
	}
	group = new_group(g, key, hash);
	g->slots[pos] = group + 1;
	if ((uint64) g->base.ngroups * 4 > (uint64) g->capacity * 3)
		grow_table(g);
	return group;
}

static uint32
lookup_varlena(HashGrouping *g, Datum key)
{
	const char *data;
	int			len;
	uint32		hash;
	uint32		mask = g->capacity - 1;
	uint32		pos;
	uint32		group;

	key_bytes(g, key, &data, &len);
	hash = hash_bytes((const unsigned char *) data, len);
	pos = hash & mask;
	for (;;)
	{
		uint32		slot = g->slots[pos];

		if (slot == 0)
			break;
		if (g->hashes[slot - 1] == hash)
		{
			const char *other;
			int			other_len;

			key_bytes(g, g->keys[slot - 1], &other, &other_len);
			if (other_len == len && memcmp(other, data, len) == 0)
				return slot - 1;
		}
		pos = (pos + 1) & mask;
	}
	/* the group's key: a copy of the first value, with a 4-byte header */
	{
		Size		size = VARSIZE_ANY_EXHDR(DatumGetPointer(key));
		struct varlena *copy = MemoryContextAlloc(g->cxt, size + VARHDRSZ);

		SET_VARSIZE(copy, size + VARHDRSZ);
		memcpy(VARDATA(copy), VARDATA_ANY(DatumGetPointer(key)), size);
		group = new_group(g, PointerGetDatum(copy), hash);
	}
	g->slots[pos] = group + 1;
	if ((uint64) g->base.ngroups * 4 > (uint64) g->capacity * 3)
		grow_table(g);
	return group;
}

static void
hash_assign(AggGrouping *grouping, const ColumnBatch *key,
			const uint32 *sel, uint32 nsel, uint32 *groups)
{
	HashGrouping *g = (HashGrouping *) grouping;
	uint32		k;

	for (k = 0; k < nsel; k++)
	{
		uint32		row = sel != NULL ? sel[k] : k;
		Datum		v = key->values[row];

		if (key->isnull[row])
		{
			if (g->null_group < 0)
				g->null_group = new_group(g, (Datum) 0, 0);
			groups[row] = (uint32) g->null_group;
		}
		else if (g->byval)
		{
			if (!g->have_last || g->last_key != v)
			{
				g->last_group = lookup_byval(g, v);
				g->last_key = v;
				g->have_last = true;
			}
			groups[row] = g->last_group;
		}
		else
			groups[row] = lookup_varlena(g, v);
	}
}

static Datum
hash_key(AggGrouping *grouping, uint32 group, bool *isnull)
{
	HashGrouping *g = (HashGrouping *) grouping;

	*isnull = (int64) group == g->null_group;
	return g->keys[group];
}

static const AggGroupingMethods hash_methods = {
	.assign = hash_assign,
	.key = hash_key,
};

AggGrouping *
agg_grouping_create(Form_pg_attribute key, MemoryContext cxt)
{
	HashGrouping *g;

	if (key == NULL)
	{
		AggGrouping *all = MemoryContextAllocZero(cxt, sizeof(AggGrouping));

		all->ngroups = 1;
		return all;
	}
	g = MemoryContextAllocZero(cxt, sizeof(HashGrouping));
	g->base.methods = &hash_methods;
	g->cxt = cxt;
	g->byval = key->attbyval;
	g->blank_padded = key->atttypid == BPCHAROID;
	g->capacity = INITIAL_CAPACITY;
	g->slots = MemoryContextAllocZero(cxt, sizeof(uint32) * g->capacity);
	g->null_group = -1;
	return &g->base;
}
