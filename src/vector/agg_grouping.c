/*-------------------------------------------------------------------------
 *
 * agg_grouping.c
 *	  Grouping by one or more keys through an open-addressing hash table
 *	  of the groups' keys: pass-by-value keys compare as integers,
 *	  text-like keys (text, varchar, bpchar under a deterministic
 *	  collation, where equality is equality of bytes, ignoring bpchar's
 *	  trailing blanks) by their bytes.  NULL keys are equal to each other,
 *	  as GROUP BY has them.  A group keeps the first values seen as its
 *	  keys, as PostgreSQL's HashAggregate does.
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

typedef struct KeyType
{
	bool		byval;
	bool		blank_padded;	/* bpchar: trailing blanks do not count */
} KeyType;

typedef struct HashGrouping
{
	AggGrouping base;
	MemoryContext cxt;
	int			nkeys;
	KeyType    *types;

	/* slots hold group + 1 (0: empty); capacity is a power of two */
	uint32	   *slots;
	uint32		capacity;

	/* per group: its keys (copies of varlena ones) and their hash */
	Datum	   *keys;			/* [group * nkeys + k] */
	bool	   *nulls;
	uint32	   *hashes;
	uint32		allocated;

	/* one pass-by-value key: the last one looked up, runs skip the table */
	Datum		last_key;
	uint32		last_group;
	bool		have_last;
} HashGrouping;

#define INITIAL_CAPACITY 64
#define NULL_KEY_HASH 0x9e3779b9

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

/* the bytes a text-like key compares by */
static inline void
key_bytes(const KeyType *type, Datum v, const char **data, int *len)
{
	const char *p = VARDATA_ANY(DatumGetPointer(v));
	int			n = VARSIZE_ANY_EXHDR(DatumGetPointer(v));

	if (type->blank_padded)
		while (n > 0 && p[n - 1] == ' ')
			n--;
	*data = p;
	*len = n;
}

static inline uint32
hash_key(const KeyType *type, Datum v, bool isnull)
{
	const char *data;
	int			len;

	if (isnull)
		return NULL_KEY_HASH;
	if (type->byval)
		return agg_hash_datum(v);
	key_bytes(type, v, &data, &len);
	return hash_bytes((const unsigned char *) data, len);
}

static inline bool
keys_equal(const KeyType *type, Datum a, bool a_null, Datum b, bool b_null)
{
	const char *a_data;
	const char *b_data;
	int			a_len;
	int			b_len;

	if (a_null || b_null)
		return a_null && b_null;
	if (type->byval)
		return a == b;
	key_bytes(type, a, &a_data, &a_len);
	key_bytes(type, b, &b_data, &b_len);
	return a_len == b_len && memcmp(a_data, b_data, a_len) == 0;
}

static void
grow_groups(HashGrouping *g)
{
	uint32		n = g->allocated == 0 ? INITIAL_CAPACITY : g->allocated * 2;
	Size		nkeys = g->nkeys;

	if (g->allocated == 0)
	{
		g->keys = MemoryContextAllocHuge(g->cxt, sizeof(Datum) * nkeys * n);
		g->nulls = MemoryContextAllocHuge(g->cxt, sizeof(bool) * nkeys * n);
		g->hashes = MemoryContextAllocHuge(g->cxt, sizeof(uint32) * n);
	}
	else
	{
		g->keys = repalloc_huge(g->keys, sizeof(Datum) * nkeys * n);
		g->nulls = repalloc_huge(g->nulls, sizeof(bool) * nkeys * n);
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
		uint32		pos = g->hashes[i] & mask;

		while (g->slots[pos] != 0)
			pos = (pos + 1) & mask;
		g->slots[pos] = i + 1;
	}
}

/* A new group with row's keys (varlena ones copied, with a 4-byte header). */
static uint32
new_group(HashGrouping *g, ColumnBatch *const *keys, uint32 row, uint32 hash)
{
	uint32		group = g->base.ngroups;
	int			k;

	if (group == g->allocated)
		grow_groups(g);
	for (k = 0; k < g->nkeys; k++)
	{
		Datum		v = keys[k]->values[row];
		bool		isnull = keys[k]->isnull[row];

		if (!isnull && !g->types[k].byval)
		{
			Size		size = VARSIZE_ANY_EXHDR(DatumGetPointer(v));
			struct varlena *copy = MemoryContextAlloc(g->cxt, size + VARHDRSZ);

			SET_VARSIZE(copy, size + VARHDRSZ);
			memcpy(VARDATA(copy), VARDATA_ANY(DatumGetPointer(v)), size);
			v = PointerGetDatum(copy);
		}
		g->keys[(Size) group * g->nkeys + k] = isnull ? (Datum) 0 : v;
		g->nulls[(Size) group * g->nkeys + k] = isnull;
	}
	g->hashes[group] = hash;
	g->base.ngroups++;
	return group;
}

static uint32
lookup(HashGrouping *g, ColumnBatch *const *keys, uint32 row)
{
	uint32		hash = 0;
	uint32		mask = g->capacity - 1;
	uint32		pos;
	uint32		group;
	int			k;

	for (k = 0; k < g->nkeys; k++)
		hash = hash_combine(hash, hash_key(&g->types[k], keys[k]->values[row],
										   keys[k]->isnull[row]));
	pos = hash & mask;
	for (;;)
	{
		uint32		slot = g->slots[pos];

		if (slot == 0)
			break;
		if (g->hashes[slot - 1] == hash)
		{
			Size		base = (Size) (slot - 1) * g->nkeys;

			for (k = 0; k < g->nkeys; k++)
				if (!keys_equal(&g->types[k], g->keys[base + k], g->nulls[base + k],
								keys[k]->values[row], keys[k]->isnull[row]))
					break;
			if (k == g->nkeys)
				return slot - 1;
		}
		pos = (pos + 1) & mask;
	}
	group = new_group(g, keys, row, hash);
	g->slots[pos] = group + 1;
	if ((uint64) g->base.ngroups * 4 > (uint64) g->capacity * 3)
		grow_table(g);
	return group;
}

static void
hash_assign(AggGrouping *grouping, ColumnBatch *const *keys,
			const uint32 *sel, uint32 nsel, uint32 *groups)
{
	HashGrouping *g = (HashGrouping *) grouping;
	bool		one_byval = g->nkeys == 1 && g->types[0].byval;
	uint32		k;

	for (k = 0; k < nsel; k++)
	{
		uint32		row = sel != NULL ? sel[k] : k;

		if (one_byval && !keys[0]->isnull[row])
		{
			Datum		v = keys[0]->values[row];

			if (!g->have_last || g->last_key != v)
			{
				g->last_group = lookup(g, keys, row);
				g->last_key = v;
				g->have_last = true;
			}
			groups[row] = g->last_group;
		}
		else
			groups[row] = lookup(g, keys, row);
	}
}

static Datum
hash_group_key(AggGrouping *grouping, uint32 group, int k, bool *isnull)
{
	HashGrouping *g = (HashGrouping *) grouping;
	Size		i = (Size) group * g->nkeys + k;

	*isnull = g->nulls[i];
	return g->keys[i];
}

static const AggGroupingMethods hash_methods = {
	.assign = hash_assign,
	.key = hash_group_key,
};

AggGrouping *
agg_grouping_create(int nkeys, const Oid *types, MemoryContext cxt)
{
	HashGrouping *g;
	int			k;

	if (nkeys == 0)
	{
		AggGrouping *all = MemoryContextAllocZero(cxt, sizeof(AggGrouping));

		all->ngroups = 1;
		return all;
	}
	g = MemoryContextAllocZero(cxt, sizeof(HashGrouping));
	g->base.methods = &hash_methods;
	g->cxt = cxt;
	g->nkeys = nkeys;
	g->types = MemoryContextAllocZero(cxt, sizeof(KeyType) * nkeys);
	for (k = 0; k < nkeys; k++)
	{
		g->types[k].byval = get_typbyval(types[k]);
		g->types[k].blank_padded = types[k] == BPCHAROID;
	}
	g->capacity = INITIAL_CAPACITY;
	g->slots = MemoryContextAllocZero(cxt, sizeof(uint32) * g->capacity);
	return &g->base;
}
