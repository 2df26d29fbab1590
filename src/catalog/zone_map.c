/*-------------------------------------------------------------------------
 *
 * zone_map.c
 *	  Zone-map bounds: which columns get them, and their stored form.
 *
 *	  Bounds are computed with the column's default btree ordering under
 *	  the column's collation; pruning (scan/prune.c) only uses them for
 *	  comparisons in that same collation.  A bound is the value's in-memory
 *	  representation in a bytea: typlen bytes for fixed-length types, the
 *	  whole varlena otherwise.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"

#include "catalog/zone_map.h"

FmgrInfo *
zone_map_cmp(Form_pg_attribute attr)
{
	TypeCacheEntry *tc;

	if (attr->attisdropped)
		return NULL;
	switch (attr->atttypid)
	{
		case JSONOID:
		case JSONBOID:
		case XMLOID:
		case TSVECTOROID:
			return NULL;
		default:
			break;
	}
	if (type_is_array(attr->atttypid) || type_is_rowtype(attr->atttypid))
		return NULL;
	tc = lookup_type_cache(attr->atttypid, TYPECACHE_CMP_PROC_FINFO);
	if (!OidIsValid(tc->cmp_proc_finfo.fn_oid))
		return NULL;
	return &tc->cmp_proc_finfo;
}

bool
zone_map_sortsupport(Form_pg_attribute attr, SortSupport ssup)
{
	TypeCacheEntry *tc;

	if (zone_map_cmp(attr) == NULL)
		return false;
	tc = lookup_type_cache(attr->atttypid, TYPECACHE_LT_OPR);
	if (!OidIsValid(tc->lt_opr))
		return false;
	memset(ssup, 0, sizeof(SortSupportData));
	ssup->ssup_cxt = CurrentMemoryContext;
	ssup->ssup_collation = attr->attcollation;
	ssup->ssup_nulls_first = false;
	PrepareSortSupportFromOrderingOp(tc->lt_opr, ssup);
	return true;
}

bytea *
zone_bound_serialize(Datum value, Form_pg_attribute attr)
{
	Size		len;
	bytea	   *b;

	if (attr->attbyval)
		len = attr->attlen;
	else
		len = datumGetSize(value, false, attr->attlen);
	if (len > ZONE_BOUND_MAX_BYTES)
		return NULL;
	b = palloc(VARHDRSZ + len);
	SET_VARSIZE(b, VARHDRSZ + len);
	if (attr->attbyval)
		store_att_byval(VARDATA(b), value, attr->attlen);
	else
		memcpy(VARDATA(b), DatumGetPointer(value), len);
	return b;
}

Datum
zone_bound_deserialize(const bytea *bound, Form_pg_attribute attr)
{
	Size		len = VARSIZE_ANY_EXHDR(bound);
	char	   *copy;

	/* copy into MAXALIGNed memory: the type may need alignment */
	copy = palloc(Max(len, sizeof(Datum)));
	memcpy(copy, VARDATA_ANY(bound), len);
	if (attr->attbyval)
	{
		if (len != (Size) attr->attlen)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("zone map bound of column \"%s\" has length %zu, expected %d",
							NameStr(attr->attname), len, attr->attlen)));
		return fetch_att(copy, true, attr->attlen);
	}
	if ((attr->attlen > 0 && len != (Size) attr->attlen) ||
		(attr->attlen == -1 && (len < VARHDRSZ_SHORT || VARSIZE_ANY(copy) != len)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("zone map bound of column \"%s\" is damaged",
						NameStr(attr->attname))));
	return PointerGetDatum(copy);
}

void
zone_bounds_widen(SortSupport ssup, Datum lo, Datum hi, bool *have,
				  Datum *min, Datum *max)
{
	if (!*have)
	{
		*min = lo;
		*max = hi;
		*have = true;
		return;
	}
	if (ApplySortComparator(lo, false, *min, false, ssup) < 0)
		*min = lo;
	if (ApplySortComparator(hi, false, *max, false, ssup) > 0)
		*max = hi;
}

void
zone_bounds_serialize_pair(Datum min, Datum max, Form_pg_attribute attr,
						   bytea **min_out, bytea **max_out)
{
	*min_out = zone_bound_serialize(min, attr);
	*max_out = zone_bound_serialize(max, attr);
	/* pruning tests both bounds or neither */
	if (*min_out == NULL || *max_out == NULL)
		*min_out = *max_out = NULL;
}
