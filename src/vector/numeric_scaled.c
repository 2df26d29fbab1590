/*-------------------------------------------------------------------------
 *
 * numeric_scaled.c
 *	  numeric results of the vectorized aggregation's sums of scaled
 *	  integers (value x 10^scale; stored values are read as such by
 *	  codec/numeric_format.c), through numeric_in: done once per group, it
 *	  keeps the construction of numeric values in PostgreSQL's hands.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "vector/numeric_scaled.h"

#ifdef VEC_HAVE_SCALED_NUMERIC
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
#endif							/* VEC_HAVE_SCALED_NUMERIC */
