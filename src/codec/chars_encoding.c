/*-------------------------------------------------------------------------
 *
 * chars_encoding.c
 *	  Packed characters (layout in chars_encoding.h).
 *
 *	  Hex digests, ids of sessions and digit strings are the widest columns
 *	  of many event tables (the benchmark's md5 session ids: 39% of its
 *	  table).  Their bytes are random among a few symbols, so zstd only
 *	  entropy-codes them, to 4 bits a hex digit, and a fetch by TID must
 *	  decode a frame of them, Huffman tables and all, to read one.  Coded
 *	  with the fewest bits that number the symbols, they take the same 4
 *	  bits, and a row is found by arithmetic.
 *
 *	  Server code and, with FRONTEND defined, the fuzz harness (test/fuzz).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat/compat_varatt.h"

#include "codec/bit_packing.h"
#include "codec/chars_encoding.h"

/* The fields after the value header, as stored. */
typedef struct CharsHeader
{
	uint32		length;
	uint32		symbols;
	uint32		bits;
	uint32		reserved;
	uint8		alphabet[CHARS_MAX_SYMBOLS];
} CharsHeader;

StaticAssertDecl(sizeof(CharsHeader) <= VALUE_EXTENSION_MAX,
				 "packed characters' fields outgrow what a fetch reads first");

/*
 * The common length of the rows' values and their alphabet in *h, with
 * code[b] the code of byte b; false when the rows cannot be packed
 * characters.
 */
static bool
chars_alphabet(const Datum *values, const bool *isnull, uint32 count,
			   CharsHeader *h, uint8 *code)
{
	bool		seen[256] = {0};
	int			length = -1;
	uint32		i;
	int			b;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < count; i++)
	{
		const char *p;
		int			len;
		int			k;

		if (isnull[i])
			continue;
		p = VARDATA_ANY(DatumGetPointer(values[i]));
		len = (int) VARSIZE_ANY_EXHDR(DatumGetPointer(values[i]));
		if (len < 1 || len > CHARS_MAX_LENGTH || (length >= 0 && len != length))
			return false;
		length = len;
		for (k = 0; k < len; k++)
			seen[(uint8) p[k]] = true;
	}
	for (b = 0; b < 256; b++)
	{
		if (!seen[b])
			continue;
		if (h->symbols == CHARS_MAX_SYMBOLS)
			return false;
		code[b] = (uint8) h->symbols;
		h->alphabet[h->symbols++] = (uint8) b;
	}
	if (length < 0)
	{
		/* only NULLs: one symbol, one byte, no codes */
		length = 1;
		h->symbols = 1;
	}
	h->length = (uint32) length;
	h->bits = h->symbols <= 1 ? 0 : bits_for(h->symbols - 1);
	return true;
}

bool
chars_ok(const Datum *values, const bool *isnull, uint32 count)
{
	CharsHeader h;
	uint8		code[256];

	return chars_alphabet(values, isnull, count, &h, code);
}

bool
chars_encode(StringInfo buf, const Datum *values, const bool *isnull,
			 uint32 count)
{
	CharsHeader h;
	uint8		code[256];
	uint32		present = 0;
	uint64		codes_len;
	uint8	   *out;
	uint32		i;

	if (!chars_alphabet(values, isnull, count, &h, code))
		return false;
	for (i = 0; i < count; i++)
		present += !isnull[i];
	value_encode_extension(buf, isnull, count, &h, sizeof(h));

	codes_len = bits_bytes((uint64) present * h.length, h.bits);
	enlargeStringInfo(buf, (int) codes_len);
	out = (uint8 *) buf->data + buf->len;
	if (h.bits > 0)
	{
		BitWriter	w;

		bit_writer_init(&w, out);
		for (i = 0; i < count; i++)
		{
			const char *p;
			uint32		k;

			if (isnull[i])
				continue;
			p = VARDATA_ANY(DatumGetPointer(values[i]));
			for (k = 0; k < h.length; k++)
				bit_writer_put32(&w, code[(uint8) p[k]], h.bits);
		}
		bit_writer_finish(&w);
	}
	buf->len += (int) codes_len;
	buf->data[buf->len] = '\0';
	return true;
}

typedef struct CharsLayout
{
	uint32		null_count;
	const uint8 *bitmap;		/* NULL without NULLs */
	CharsHeader h;
	const uint8 *codes;
	uint64		codes_len;
} CharsLayout;

static const char *
chars_layout(const char *raw, uint32 rawlen, uint32 expected_count,
			 CharsLayout *l)
{
	Size		off;
	uint32		i;
	const char *problem;

	problem = value_decode_extension(raw, rawlen, expected_count,
									 &l->null_count, &l->bitmap, &l->h,
									 sizeof(l->h), &off);
	if (problem != NULL)
		return problem;
	if (l->h.length < 1 || l->h.length > CHARS_MAX_LENGTH ||
		l->h.symbols < 1 || l->h.symbols > CHARS_MAX_SYMBOLS ||
		l->h.reserved != 0)
		return "packed characters have an impossible length or alphabet";
	if (l->h.bits != (l->h.symbols <= 1 ? 0 : bits_for(l->h.symbols - 1)))
		return "packed characters have the wrong width";
	for (i = 1; i < CHARS_MAX_SYMBOLS; i++)
		if (i < l->h.symbols ? l->h.alphabet[i] <= l->h.alphabet[i - 1] :
			l->h.alphabet[i] != 0)
			return "packed characters' alphabet is out of order";
	l->codes = (const uint8 *) raw + off;
	l->codes_len = bits_bytes((uint64) (expected_count - l->null_count) *
							  l->h.length, l->h.bits);
	if (l->codes_len != rawlen - off)
		return "packed characters do not fill the frame";
	return NULL;
}

/*
 * Writes the k-th stored value at out, behind a 1-byte header; false when
 * a code names no symbol.  Codes are read a word at a time, up to 56 bits
 * (get_bits then reads no byte past its eight): a 32-character digest in
 * 4-bit codes takes three reads, not 32.
 */
static bool
write_value(const CharsLayout *l, uint32 k, char *out)
{
	uint32		bits = l->h.bits;
	uint64		bit = (uint64) k * l->h.length * bits;
	uint64		mask = (UINT64CONST(1) << bits) - 1;
	uint32		per_word = bits == 0 ? l->h.length : 56 / bits;
	uint32		i = 0;

	SET_VARSIZE_SHORT(out, VARHDRSZ_SHORT + l->h.length);
	while (i < l->h.length)
	{
		uint32		n = Min(per_word, l->h.length - i);
		uint64		word = get_bits(l->codes, l->codes_len, bit, n * bits);

		bit += (uint64) n * bits;
		for (; n > 0; n--, i++, word >>= bits)
		{
			uint64		c = word & mask;

			if (c >= l->h.symbols)
				return false;
			out[VARHDRSZ_SHORT + i] = (char) l->h.alphabet[c];
		}
	}
	return true;
}

const char *
chars_decode(const char *raw, uint32 rawlen, uint32 expected_count,
			 char *made, Datum *values, bool *isnull)
{
	CharsLayout l;
	uint32		present = 0;
	uint32		i;
	const char *problem;

	problem = chars_layout(raw, rawlen, expected_count, &l);
	if (problem != NULL)
		return problem;
	problem = value_null_flags(l.bitmap, l.null_count, expected_count, values,
							   isnull);
	if (problem != NULL)
		return problem;
	for (i = 0; i < expected_count; i++)
	{
		char	   *out = made + (Size) i * CHARS_VALUE_ROOM;

		if (isnull[i])
			continue;
		if (!write_value(&l, present++, out))
			return "packed character code out of range";
		values[i] = PointerGetDatum(out);
	}
	return NULL;
}

const char *
chars_decode_row(const char *raw, uint32 rawlen, uint32 expected_count,
				 uint32 row, char *made, Datum *value, bool *isnull)
{
	CharsLayout l;
	uint32		present;
	char	   *out;
	const char *problem;

	problem = chars_layout(raw, rawlen, expected_count, &l);
	if (problem != NULL)
		return problem;
	*value = (Datum) 0;
	problem = value_row_position(l.bitmap, l.null_count, expected_count, row,
								 isnull, &present);
	if (problem != NULL || *isnull)
		return problem;
	out = made;
	if (!write_value(&l, present, out))
		return "packed character code out of range";
	*value = PointerGetDatum(out);
	return NULL;
}

const char *
chars_row_span(const char *raw, uint32 rawlen, uint32 expected_count,
			   uint32 row, uint32 *start, uint32 *len)
{
	CharsLayout l;
	uint32		present;
	bool		isnull;
	uint64		width;
	const char *problem;

	*start = 0;
	*len = 0;
	problem = chars_layout(raw, rawlen, expected_count, &l);
	if (problem == NULL)
		problem = value_row_position(l.bitmap, l.null_count, expected_count,
									 row, &isnull, &present);
	if (problem != NULL || isnull)
		return problem;
	width = (uint64) l.h.length * l.h.bits;
	bits_span((const char *) l.codes - raw, l.codes_len, present * width,
			  width, start, len);
	return NULL;
}
