/*-------------------------------------------------------------------------
 *
 * numeric_scaled.h
 *	  numeric values as scaled integers, for aggregate kernels that add
 *	  them without PostgreSQL's digit-array arithmetic (stored values are
 *	  read by codec/numeric_format.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_NUMERIC_SCALED_H
#define STORAGE_ENGINE_NUMERIC_SCALED_H

#include "postgres.h"

#include "codec/numeric_format.h"

/* the kernels need 128-bit sums and checked arithmetic on them */
#ifdef HAVE_SCALED_NUMERIC
#define VEC_HAVE_SCALED_NUMERIC 1

/* The numeric value x 10^-dscale, with display scale dscale. */
extern Datum numeric_from_scaled(int128 value, int dscale);

#endif

#endif							/* STORAGE_ENGINE_NUMERIC_SCALED_H */
