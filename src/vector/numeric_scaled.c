/*-------------------------------------------------------------------------
 *
 * numeric_scaled.c
 *	  Converts between PostgreSQL's stored numeric format and scaled
 *	  integers (value x 10^scale), so that sum() and avg() of a numeric
 *	  column add 64-bit integers into a 128-bit sum instead of running
 *	  numeric arithmetic row by row.
 *
 *	  The stored format is PostgreSQL's on-disk one (utils/adt/numeric.c):
 *	  a uint16 header, then either the short form (sign, display scale
 *	  and weight packed in the header) or the long form (sign and display
 *	  scale in the header, an int16 weight after it), then base-10000
 *	  digits, most significant first; the value is the sum of
 *	  digit[i] x 10000^(weight - i).  Values are read from the column's
 *	  decoded buffer, where they may be unaligned and carry a 1-byte
 *	  varlena header, so every field is copied out with memcpy.
 *
 *	  Results go back through numeric_in: done once per group, it keeps
 *	  the construction of numeric values in PostgreSQL's hands.
 *
 *	  The reading half builds with FRONTEND defined, for the fuzz harness
 *	  (test/fuzz, target numeric.scaled): the values come from disk.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat/compat_varatt.h"

#ifndef FRONTEND
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#endif

#include "vector/numeric_scaled.h"

#ifdef VEC_HAVE_SCALED_NUMERIC

#define NUMERIC_FORM_MASK		0xC000
#define NUMERIC_FORM_NEG		0x4000
#define NUMERIC_FORM_SHORT		0x8000
#define NUMERIC_FORM_SPECIAL	0xC000
#define NUMERIC_LONG_DSCALE_MASK	0x3FFF
#define NUMERIC_SHORT_NEG		0x2000
#define NUMERIC_SHORT_DSCALE_MASK	0x1F80
#define NUMERIC_SHORT_DSCALE_SHIFT	7
#define NUMERIC_SHORT_WEIGHT_NEG	0x0040
#define NUMERIC_SHORT_WEIGHT_MASK	0x003F
#define NUMERIC_BASE			10000
#define NUMERIC_BASE_DIGITS		4

static const int64 pow10_int64[19] = {
	INT64CONST(1), INT64CONST(10), INT64CONST(100), INT64CONST(1000),
	INT64CONST(10000), INT64CONST(100000), INT64CONST(1000000),
	INT64CONST(10000000), INT64CONST(100000000), INT64CONST(1000000000),
	INT64CONST(10000000000), INT64CONST(100000000000),
	INT64CONST(1000000000000), INT64CONST(10000000000000),
	INT64CONST(100000000000000), INT64CONST(1000000000000000),
	INT64CONST(10000000000000000), INT64CONST(100000000000000000),
	INT64CONST(1000000000000000000)
};

bool
numeric_to_scaled(Datum value, int128 *mantissa, int *dscale)
{
	const char *data = VARDATA_ANY(DatumGetPointer(value));
	Size		len = VARSIZE_ANY_EXHDR(DatumGetPointer(value));
	uint16		header;
	bool		negative;
	int			scale;
	int			weight;
	Size		first;
	int			ndigits;
	int64		acc = 0;
	int128		wide;
	int			exp;
	int			i;

	if (len < sizeof(uint16))
		return false;
	memcpy(&header, data, sizeof(uint16));
	switch (header & NUMERIC_FORM_MASK)
	{
		case NUMERIC_FORM_SPECIAL:
			return false;
		case NUMERIC_FORM_SHORT:
			negative = (header & NUMERIC_SHORT_NEG) != 0;
			scale = (header & NUMERIC_SHORT_DSCALE_MASK) >> NUMERIC_SHORT_DSCALE_SHIFT;
			weight = header & NUMERIC_SHORT_WEIGHT_MASK;
			if (header & NUMERIC_SHORT_WEIGHT_NEG)
				weight |= ~NUMERIC_SHORT_WEIGHT_MASK;
			first = sizeof(uint16);
			break;
		default:
			{
				int16		w;

				if (len < sizeof(uint16) + sizeof(int16))
					return false;
				negative = (header & NUMERIC_FORM_MASK) == NUMERIC_FORM_NEG;
				scale = header & NUMERIC_LONG_DSCALE_MASK;
				memcpy(&w, data + sizeof(uint16), sizeof(int16));
				weight = w;
				first = sizeof(uint16) + sizeof(int16);
			}
			break;
	}
	if (scale > NUMERIC_SCALED_MAX_SCALE || (len - first) % sizeof(int16) != 0)
		return false;
	ndigits = (int) ((len - first) / sizeof(int16));

	/*
	 * The digits as one integer: up to 4 base-10000 digits in an int64 (the
	 * common case), up to 9 (36 decimal digits) in an int128.
	 */
	if (ndigits > 9)
		return false;
	for (i = 0; i < ndigits; i++)
	{
		int16		digit;

		memcpy(&digit, data + first + i * sizeof(int16), sizeof(int16));
		if (digit < 0 || digit >= NUMERIC_BASE)
			return false;
		if (i == 4)
			break;
		acc = acc * NUMERIC_BASE + digit;
	}

	/*
	 * Up to 16 decimal digits (most numerics): in 64 bits, which is several
	 * times faster than 128-bit multiplication and division, library calls
	 * on most platforms.
	 */
	if (i == ndigits)
	{
		exp = acc == 0 ? 0 :
			NUMERIC_BASE_DIGITS * (weight - ndigits + 1) + scale;
		if (exp >= 0 && exp <= 18 && acc <= PG_INT64_MAX / pow10_int64[exp])
		{
			acc *= pow10_int64[exp];
			*mantissa = negative ? -acc : acc;
			*dscale = scale;
			return true;
		}
		if (exp < 0 && exp >= -18)
		{
			/* digits past the display scale: not a value numeric makes */
			if (acc % pow10_int64[-exp] != 0)
				return false;
			acc /= pow10_int64[-exp];
			*mantissa = negative ? -acc : acc;
			*dscale = scale;
			return true;
		}
	}
	wide = acc;
	for (; i < ndigits; i++)
	{
		int16		digit;

		memcpy(&digit, data + first + i * sizeof(int16), sizeof(int16));
		if (digit < 0 || digit >= NUMERIC_BASE)
			return false;
		wide = wide * NUMERIC_BASE + digit;
	}

	/* the digits x 10000^(weight - ndigits + 1) x 10^scale, as an integer */
	exp = NUMERIC_BASE_DIGITS * (weight - ndigits + 1) + scale;
	if (wide == 0)
		exp = 0;
	if (exp >= 0)
	{
		if (!int128_scale_up(wide, exp, &wide))
			return false;
	}
	else
	{
		/* digits past the display scale: not a value numeric makes */
		if (exp < -18 || wide % pow10_int64[-exp] != 0)
			return false;
		wide /= pow10_int64[-exp];
	}
	*mantissa = negative ? -wide : wide;
	*dscale = scale;
	return true;
}

bool
int128_scale_up(int128 value, int exp, int128 *result)
{
	if (exp > 38)
		return false;
	while (exp > 0)
	{
		int			step = Min(exp, 18);

		if (__builtin_mul_overflow(value, (int128) pow10_int64[step], &value))
			return false;
		exp -= step;
	}
	*result = value;
	return true;
}

#ifndef FRONTEND
Datum
numeric_from_scaled(int128 value, int dscale)
{
	char		digits[48];
	char		text[64];
	uint128		magnitude;
	int			n = 0;
	int			out = 0;
	int			i;

	magnitude = value < 0 ? -(uint128) value : (uint128) value;
	do
	{
		digits[n++] = '0' + (int) (magnitude % 10);
		magnitude /= 10;
	} while (magnitude > 0);
	/* at least one digit before the point */
	while (n <= dscale)
		digits[n++] = '0';

	if (value < 0)
		text[out++] = '-';
	for (i = n - 1; i >= 0; i--)
	{
		if (i == dscale - 1)
			text[out++] = '.';
		text[out++] = digits[i];
	}
	text[out] = '\0';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(text),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}
#endif							/* !FRONTEND */

#endif							/* VEC_HAVE_SCALED_NUMERIC */
