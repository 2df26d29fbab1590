/*-------------------------------------------------------------------------
 *
 * dict_encoding.c
 *	  Dictionary encoding of a frame's values (layout in dict_encoding.h).
 *
 *	  Columns of few distinct values (categories, country codes, tags)
 *	  repeat the same bytes row after row.  zstd squeezes them anyway, but
 *	  a fetch by TID must decompress and walk a whole frame of them, up to
 *	  1,024 values, to reach one: for a column of arrays of tags, 46 kB.
 *	  Dictionary-encoded, the frame is its few values and a byte or less
 *	  per row, so a fetch decompresses a few hundred bytes and reaches its
 *	  row by arithmetic, and a scan builds each row's Datum by indexing the
 *	  dictionary instead of parsing a varlena.
 *
 *	  Server code and, with FRONTEND defined, the fuzz harness (test/fuzz).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "compat/compat_varatt.h"
#include "port/pg_bitutils.h"

#include "codec/bit_packing.h"
#include "codec/dict_encoding.h"

/* Open addressing over at most DICT_MAX_ENTRIES entries, half full. */
#define DICT_SLOTS				(2 * DICT_MAX_ENTRIES)

typedef struct DictSet
{
	const ValueTypeInfo *type;
	uint32		n;
	Datum		entries[DICT_MAX_ENTRIES];
	uint16		slots[DICT_SLOTS];	/* entry index + 1, or 0 */
} DictSet;

/* The bytes that make a value what it is (the writer detoasted it). */
static inline void
value_bytes(const ValueTypeInfo *type, Datum v, const char **p, Size *len)
{
	if (type->typlen == -1)
	{
		*p = VARDATA_ANY(DatumGetPointer(v));
		*len = VARSIZE_ANY_EXHDR(DatumGetPointer(v));
	}
	else if (type->typlen > 0)
	{
		*p = DatumGetPointer(v);
		*len = (Size) type->typlen;
	}
	else
	{
		*p = DatumGetCString(v);
		*len = strlen(*p);
	}
}

/* v's entry in set, added if new; -1 when the set is full. */
static int
set_add(DictSet *set, Datum v)
{
	const char *p;
	Size		len;
	uint32		slot;

	value_bytes(set->type, v, &p, &len);
	slot = hash_bytes((const unsigned char *) p, (int) len) % DICT_SLOTS;
	for (;;)
	{
		uint16		e = set->slots[slot];
		const char *q;
		Size		qlen;

		if (e == 0)
			break;
		value_bytes(set->type, set->entries[e - 1], &q, &qlen);
		if (qlen == len && memcmp(p, q, len) == 0)
			return e - 1;
		slot = (slot + 1) % DICT_SLOTS;
	}
	if (set->n == DICT_MAX_ENTRIES)
		return -1;
	set->entries[set->n] = v;
	set->slots[slot] = (uint16) (++set->n);
	return set->n - 1;
}

static void
set_init(DictSet *set, const ValueTypeInfo *type)
{
	set->type = type;
	set->n = 0;
	memset(set->slots, 0, sizeof(set->slots));
}

/* The fewest bits numbering n entries. */
static inline uint32
code_bits_for(uint32 n)
{
	return n <= 1 ? 0 : pg_ceil_log2_32(n);
}

uint32
dict_count_distinct(const ValueTypeInfo *type, const Datum *values,
					const bool *isnull, uint32 count, uint32 limit)
{
	DictSet    *set = palloc(sizeof(DictSet));
	uint32		i;
	uint32		n;

	set_init(set, type);
	for (i = 0; i < count && set->n <= limit; i++)
		if (!isnull[i] && set_add(set, values[i]) < 0)
		{
			set->n = limit + 1;
			break;
		}
	n = Min(set->n, limit + 1);
	pfree(set);
	return n;
}

bool
dict_encode(StringInfo buf, const ValueTypeInfo *type, const Datum *values,
			const bool *isnull, uint32 count)
{
	DictSet    *set = palloc(sizeof(DictSet));
	uint8	   *codes = palloc(Max(count, 1));
	bool		no_nulls[DICT_MAX_ENTRIES] = {0};
	uint32		present = 0;
	uint32		bits;
	uint32		lengths[2];
	int			lengths_at;
	int			dict_at;
	uint8	   *out;
	BitWriter	w;
	Size		codes_len;
	uint32		i;

	set_init(set, type);
	for (i = 0; i < count; i++)
	{
		int			code;

		if (isnull[i])
			continue;
		code = set_add(set, values[i]);
		if (code < 0)
		{
			pfree(codes);
			pfree(set);
			return false;
		}
		codes[present++] = (uint8) code;
	}
	/* the lengths are filled in once the dictionary is written */
	memset(lengths, 0, sizeof(lengths));
	value_encode_extension(buf, isnull, count, lengths, sizeof(lengths));
	lengths_at = buf->len - (int) sizeof(lengths);
	dict_at = buf->len;
	value_encode(buf, type, set->entries, no_nulls, set->n);

	bits = code_bits_for(set->n);
	lengths[0] = (uint32) (buf->len - dict_at);
	lengths[1] = bits;
	memcpy(buf->data + lengths_at, lengths, sizeof(lengths));

	codes_len = bits_bytes(present, bits);
	enlargeStringInfo(buf, (int) codes_len);
	out = (uint8 *) buf->data + buf->len;
	bit_writer_init(&w, out);
	for (i = 0; i < present && bits > 0; i++)
		bit_writer_put32(&w, codes[i], bits);
	bit_writer_finish(&w);
	buf->len += (int) codes_len;
	buf->data[buf->len] = '\0';
	pfree(codes);
	pfree(set);
	return true;
}

/* The code of the i-th value of codes packed bits wide (0 to 8 bits). */
static inline uint32
code_at(const uint8 *codes, Size codes_len, uint32 i, uint32 bits)
{
	return (uint32) get_bits(codes, codes_len, (uint64) i * bits, bits);
}

typedef struct DictLayout
{
	uint32		null_count;
	const uint8 *bitmap;		/* NULL without NULLs */
	Size		dict_at;
	uint32		dict_length;
	uint32		entries;
	uint32		bits;
	const uint8 *codes;
	Size		codes_len;
} DictLayout;

/* Checks everything but the dictionary's values and the codes' range. */
static const char *
dict_layout(const char *raw, uint32 rawlen, uint32 expected_count,
			DictLayout *l)
{
	Size		off;
	uint32		lengths[2];
	uint32		dict_nulls;
	uint32		present;
	const char *problem;

	problem = value_decode_extension(raw, rawlen, expected_count,
									 &l->null_count, &l->bitmap, lengths,
									 sizeof(lengths), &off);
	if (problem != NULL)
		return problem;
	l->dict_at = off;
	l->dict_length = lengths[0];
	l->bits = lengths[1];
	if (l->dict_length < VALUE_CHUNK_HEADER_SIZE ||
		l->dict_length > rawlen - off)
		return "dictionary runs past the end of the frame";
	memcpy(&l->entries, raw + off, sizeof(uint32));
	memcpy(&dict_nulls, raw + off + sizeof(uint32), sizeof(uint32));
	present = expected_count - l->null_count;
	/* only a frame of NULLs has an empty dictionary */
	if (l->entries > DICT_MAX_ENTRIES || (l->entries == 0) != (present == 0))
		return "dictionary has an impossible number of entries";
	if (dict_nulls != 0)
		return "dictionary holds NULLs";
	if (l->bits != code_bits_for(l->entries))
		return "dictionary codes have the wrong width";
	l->codes = (const uint8 *) raw + off + l->dict_length;
	l->codes_len = bits_bytes(present, l->bits);
	if (l->codes_len != rawlen - (off + l->dict_length))
		return "dictionary codes do not fill the frame";
	return NULL;
}

const char *
dict_decode(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
			uint32 expected_count, Datum *values, bool *isnull)
{
	DictLayout	l;
	Datum		dict[DICT_MAX_ENTRIES];
	bool		dict_isnull[DICT_MAX_ENTRIES];
	uint32		present = 0;
	uint32		i;
	const char *problem;

	problem = dict_layout(raw, rawlen, expected_count, &l);
	if (problem != NULL)
		return problem;
	problem = value_decode(raw + l.dict_at, l.dict_length, type, l.entries,
						   dict, dict_isnull);
	if (problem != NULL)
		return problem;
	problem = value_null_flags(l.bitmap, l.null_count, expected_count, values,
							   isnull);
	if (problem != NULL)
		return problem;
	for (i = 0; i < expected_count; i++)
	{
		uint32		code;

		if (isnull[i])
			continue;
		code = code_at(l.codes, l.codes_len, present++, l.bits);
		if (code >= l.entries)
			return "dictionary code out of range";
		values[i] = dict[code];
	}
	return NULL;
}

const char *
dict_decode_row(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
				uint32 expected_count, uint32 row, Datum *value,
				bool *isnull)
{
	DictLayout	l;
	uint32		present;
	uint32		code;
	bool		entry_isnull;
	const char *problem;

	problem = dict_layout(raw, rawlen, expected_count, &l);
	if (problem != NULL)
		return problem;
	*value = (Datum) 0;
	problem = value_row_position(l.bitmap, l.null_count, expected_count, row,
								 isnull, &present);
	if (problem != NULL || *isnull)
		return problem;
	code = code_at(l.codes, l.codes_len, present, l.bits);
	if (code >= l.entries)
		return "dictionary code out of range";
	return value_decode_row(raw + l.dict_at, l.dict_length, type, l.entries,
							code, NULL, value, &entry_isnull);
}
