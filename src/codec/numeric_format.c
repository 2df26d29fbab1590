/*-------------------------------------------------------------------------
 *
 * numeric_format.c
 *	  PostgreSQL's stored numeric format (utils/adt/numeric.c) read as and
 *	  written from scaled integers (value x 10^scale).
 *
 *	  The format: a uint16 header, then either the short form (sign,
 *	  display scale and weight packed in the header) or the long form (sign
 *	  and display scale in the header, an int16 weight after it), then
 *	  base-10000 digits, most significant first, none of them zero at
 *	  either end; the value is the sum of digit[i] x 10000^(weight - i),
 *	  and zero has no digits.  Values are read where they lie, possibly
 *	  unaligned and behind a 1-byte varlena header, so every field is
 *	  copied out with memcpy.
 *
 *	  The vectorized aggregation reads numerics as scaled integers to add
 *	  them without numeric arithmetic (vector/numeric_scaled.c); packed
 *	  decimals (codec/packed_encoding.c) store them so and write them back
 *	  byte for byte as numeric.c would have made them.
 *
 *	  Pure functions, built with FRONTEND defined for the fuzz harness
 *	  (test/fuzz, targets numeric.scaled and decimal.decode): the values
 *	  come from disk.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat/compat_varatt.h"

#include "codec/numeric_format.h"

#ifdef HAVE_SCALED_NUMERIC

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
	if (scale > NUMERIC_FORMAT_MAX_SCALE || (len - first) % sizeof(int16) != 0)
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

Size
numeric_write_scaled(int64 mantissa, int dscale, char *out)
{
	uint16		digits[NUMERIC_WRITE_MAX_DIGITS];
	uint128		magnitude;
	int			pad;
	int			n = 0;
	int			lowest;
	int			weight;
	uint16		header;
	Size		len;
	int			i;

	Assert(dscale >= 0 && dscale <= NUMERIC_WRITE_MAX_SCALE);
	/* the magnitude in units of the last base-10000 digit the scale reaches */
	magnitude = mantissa < 0 ? -(uint128) mantissa : (uint128) mantissa;
	pad = (NUMERIC_BASE_DIGITS - dscale % NUMERIC_BASE_DIGITS) % NUMERIC_BASE_DIGITS;
	magnitude *= (uint128) pow10_int64[pad];
	lowest = -((dscale + pad) / NUMERIC_BASE_DIGITS);

	/*
	 * Digits from the least significant up, trailing zeros dropped.  Most
	 * magnitudes fit 64 bits, where dividing by the constant base is a
	 * multiplication; 128-bit division is a library call that took a
	 * quarter of a scan decoding packed decimals.
	 */
	if ((magnitude >> 64) == 0)
	{
		uint64		m = (uint64) magnitude;

		while (m > 0 && m % NUMERIC_BASE == 0)
		{
			m /= NUMERIC_BASE;
			lowest++;
		}
		while (m > 0)
		{
			digits[n++] = (uint16) (m % NUMERIC_BASE);
			m /= NUMERIC_BASE;
		}
	}
	else
	{
		while (magnitude % NUMERIC_BASE == 0)
		{
			magnitude /= NUMERIC_BASE;
			lowest++;
		}
		while (magnitude > 0)
		{
			digits[n++] = (uint16) (magnitude % NUMERIC_BASE);
			magnitude /= NUMERIC_BASE;
		}
	}
	/* zero: no digits, weight 0, positive */
	weight = n == 0 ? 0 : lowest + n - 1;

	header = NUMERIC_FORM_SHORT |
		(uint16) (dscale << NUMERIC_SHORT_DSCALE_SHIFT) |
		(weight < 0 ? NUMERIC_SHORT_WEIGHT_NEG : 0) |
		(uint16) (weight & NUMERIC_SHORT_WEIGHT_MASK);
	if (mantissa < 0)
		header |= NUMERIC_SHORT_NEG;
	len = VARHDRSZ_SHORT + sizeof(uint16) + n * sizeof(int16);
	SET_VARSIZE_SHORT(out, len);
	memcpy(out + VARHDRSZ_SHORT, &header, sizeof(uint16));
	for (i = 0; i < n; i++)
	{
		int16		d = (int16) digits[n - 1 - i];

		memcpy(out + VARHDRSZ_SHORT + sizeof(uint16) + i * sizeof(int16), &d,
			   sizeof(int16));
	}
	return len;
}

#endif							/* HAVE_SCALED_NUMERIC */
