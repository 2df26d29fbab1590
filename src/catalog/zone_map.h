/*-------------------------------------------------------------------------
 *
 * zone_map.h
 *	  Min/max bounds kept per column chunk and per stripe, and how they
 *	  are stored (bytea) and read back.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ZONE_MAP_H
#define STORAGE_ENGINE_ZONE_MAP_H

#include "access/tupdesc.h"
#include "fmgr.h"
#include "utils/sortsupport.h"

/* Larger bounds are not kept: zone maps are for small values. */
#define ZONE_BOUND_MAX_BYTES 256

/*
 * The comparison function bounds are computed with, or NULL when the
 * column gets no zone map (no btree ordering, or a type whose ordering
 * no filter would prune on: arrays, composites, json, jsonb, ...).
 */
extern FmgrInfo *zone_map_cmp(Form_pg_attribute attr);

/*
 * The same ordering as a sort comparator, which writers computing bounds
 * of many values use (no function call per comparison, and text keeps
 * the result of comparing the same strings again); false when the column
 * gets no zone map.
 */
extern bool zone_map_sortsupport(Form_pg_attribute attr, SortSupport ssup);

/*
 * Stored bounds were computed with a type and collation; they order the
 * column's values only while the column still has both (ALTER COLUMN TYPE
 * to a binary-coercible type, or to another collation, keeps the data and
 * the bounds but changes the ordering).
 */
static inline bool
zone_bounds_apply(Form_pg_attribute attr, Oid type, Oid collation)
{
	return attr->atttypid == type && attr->attcollation == collation;
}

/* Records what bounds of attr's values are computed with. */
static inline void
zone_bounds_signature(Form_pg_attribute attr, Oid *type, Oid *collation)
{
	*type = attr->atttypid;
	*collation = attr->attcollation;
}

/* NULL when the value is too large to keep. */
extern bytea *zone_bound_serialize(Datum value, Form_pg_attribute attr);

/*
 * Writers' bounds: *min and *max take in the values lo <= hi (the first
 * pair sets them, *have says so); then both bounds serialized, or neither
 * when one is too large to keep.
 */
extern void zone_bounds_widen(SortSupport ssup, Datum lo, Datum hi, bool *have,
							  Datum *min, Datum *max);
extern void zone_bounds_serialize_pair(Datum min, Datum max, Form_pg_attribute attr,
									   bytea **min_out, bytea **max_out);

/* A Datum of the column's type, palloc'd in CurrentMemoryContext. */
extern Datum zone_bound_deserialize(const bytea *bound, Form_pg_attribute attr);

/*
 * Bounds of one column in a zone (a stripe or a chunk group): the stored
 * bounds (NULL: none), the NULL count and the row count.
 */
typedef struct ZoneStats
{
	const bytea *min;
	const bytea *max;
	uint64		null_count;
	uint64		row_count;
} ZoneStats;

/* Stats of column attno (1-based) of a zone; false when unknown. */
typedef bool (*ZoneStatsFn) (void *zone, AttrNumber attno, ZoneStats *stats);

/* A question a zone's stats answer (true: yes). */
typedef bool (*ZoneTestFn) (void *arg, ZoneStatsFn stats, void *zone);

/* A filter: the question whether no row in the zone can match. */
typedef ZoneTestFn ZoneFilterFn;

#endif							/* STORAGE_ENGINE_ZONE_MAP_H */
