/*-------------------------------------------------------------------------
 *
 * agg_distinct.h
 *	  The value sets of count(DISTINCT x) over types whose equal values are
 *	  identical Datums (integers, dates, timestamps, booleans), and how
 *	  participants of a parallel aggregation exchange them
 *	  (vector/agg_distinct.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_AGG_DISTINCT_H
#define STORAGE_ENGINE_AGG_DISTINCT_H

#include "postgres.h"

/*
 * All zero is the empty set.  Values are bits of a bitmap of a range of
 * values, once values added or merged were dense enough for one, or are in
 * an open-addressing hash set.  Memory: CurrentMemoryContext of each call.
 */
typedef struct DistinctSet
{
	Datum	   *slots;
	bool	   *used;
	uint32		n;				/* values in the hash set */
	uint32		capacity;		/* power of two */
	uint64	   *bits;			/* bit i: value bits_base + i is in */
	int64		bits_base;		/* a multiple of 64 */
	uint64		nwords;
} DistinctSet;

extern void distinct_set_add(DistinctSet *set, Datum value);

/* How many distinct values the set holds. */
extern int64 distinct_set_count(const DistinctSet *set);

/* The set's values as another participant's distinct_set_merge takes them. */
extern bytea *distinct_set_export(const DistinctSet *set);

/* Adds the values of an export; false if it is not one. */
extern bool distinct_set_merge(DistinctSet *set, const char *data, Size len);

#endif							/* STORAGE_ENGINE_AGG_DISTINCT_H */
