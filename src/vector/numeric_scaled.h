/*-------------------------------------------------------------------------
 *
 * numeric_scaled.h
 *	  numeric values as scaled integers, for aggregate kernels that add
 *	  them without PostgreSQL's digit-array arithmetic.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_NUMERIC_SCALED_H
#define STORAGE_ENGINE_NUMERIC_SCALED_H

#include "postgres.h"

/* the kernels need 128-bit sums and checked arithmetic on them */
#if defined(HAVE_INT128) && defined(HAVE__BUILTIN_OP_OVERFLOW)
#define VEC_HAVE_SCALED_NUMERIC 1

/* the largest scale a value may have to be read as a scaled integer */
#define NUMERIC_SCALED_MAX_SCALE 38

/*
 * Reads a stored numeric (any varlena header) as *mantissa x 10^-*dscale,
 * where dscale is the value's display scale.  False for NaN and the
 * infinities, for values of more than 36 significant digits or whose
 * mantissa does not fit, and for anything malformed: the caller then
 * leaves the value to PostgreSQL.
 */
extern bool numeric_to_scaled(Datum value, int128 *mantissa, int *dscale);

/* A value numeric_to_scaled converted (ok) or could not. */
typedef struct ScaledNumeric
{
	int128		mantissa;
	int32		dscale;
	bool		ok;
} ScaledNumeric;

/* The numeric value x 10^-dscale, with display scale dscale. */
extern Datum numeric_from_scaled(int128 value, int dscale);

/* value x 10^exp into *result (exp >= 0); false on overflow */
extern bool int128_scale_up(int128 value, int exp, int128 *result);
#endif

#endif							/* STORAGE_ENGINE_NUMERIC_SCALED_H */
