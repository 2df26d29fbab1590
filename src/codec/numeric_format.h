/*-------------------------------------------------------------------------
 *
 * numeric_format.h
 *	  PostgreSQL's stored numeric format read as and written from scaled
 *	  integers (codec/numeric_format.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_NUMERIC_FORMAT_H
#define STORAGE_ENGINE_NUMERIC_FORMAT_H

#include "postgres.h"

/* the largest scale a value may have to be read as a scaled integer */
#define NUMERIC_FORMAT_MAX_SCALE 38

/* a numeric as a scaled integer; defined only where 128-bit integers are */
typedef struct ScaledNumeric ScaledNumeric;

/* the conversions need 128-bit integers and checked arithmetic on them */
#if defined(HAVE_INT128) && defined(HAVE__BUILTIN_OP_OVERFLOW)
#define HAVE_SCALED_NUMERIC 1

/*
 * Reads a stored numeric (any varlena header) as *mantissa x 10^-*dscale,
 * where dscale is the value's display scale.  False for NaN and the
 * infinities, for values of more than 36 significant digits or whose
 * mantissa does not fit, and for anything malformed: the caller then
 * leaves the value to PostgreSQL.
 */
extern bool numeric_to_scaled(Datum value, int128 *mantissa, int *dscale);

/*
 * A value numeric_to_scaled converted (ok) or could not; also what packed
 * decimals decode to when no numeric needs writing (the vectorized sums
 * read these, codec/packed_encoding.h).
 */
struct ScaledNumeric
{
	int128		mantissa;
	int32		dscale;
	bool		ok;
};

/* value x 10^exp into *result (exp >= 0); false on overflow */
extern bool int128_scale_up(int128 value, int exp, int128 *result);

/*
 * Writes mantissa x 10^-dscale, display scale dscale, at out as numeric.c
 * makes it (short form, no leading or trailing zero digit) behind a 1-byte
 * varlena header, and returns its length, at most NUMERIC_WRITE_MAX_SIZE.
 */
#define NUMERIC_WRITE_MAX_SCALE		NUMERIC_FORMAT_MAX_SCALE
#define NUMERIC_WRITE_MAX_DIGITS	6	/* 19 digits and 3 of padding */
#define NUMERIC_WRITE_MAX_SIZE		(1 + 2 + 2 * NUMERIC_WRITE_MAX_DIGITS)
extern Size numeric_write_scaled(int64 mantissa, int dscale, char *out);
#endif

#endif							/* STORAGE_ENGINE_NUMERIC_FORMAT_H */
