/*-------------------------------------------------------------------------
 *
 * frames.c
 *	  Framed units (layout and rules in frames.h): the writer that
 *	  compresses frames and lays out the directory, and the checks and
 *	  decoding the readers use.
 *
 *	  Server code and, with FRONTEND defined, the fuzz harness (test/fuzz).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "codec/checksum.h"
#include "codec/frames.h"

void
frames_begin(FrameWriter *fw, const Codec *codec, int level,
			 const CodecDict *dict)
{
	fw->codec = codec;
	fw->level = level;
	fw->dict = dict;
	initStringInfo(&fw->entries);
	initStringInfo(&fw->data);
	fw->nframes = 0;
	fw->raw_total = 0;
	fw->last_raw = false;
	fw->raw_literals = false;
}

/* Compresses raw into *dst, palloc'd: the compressed length, or -1. */
static int32
compress_frame(const FrameWriter *fw, const char *raw, uint32 raw_length,
			   char **dst)
{
	int32		cap = fw->codec->bound((int32) raw_length);
	int32		clen;

	*dst = NULL;
	if (cap <= 0)
		return -1;
	*dst = palloc(cap);
	clen = fw->dict != NULL ?
		fw->codec->compress_dict(raw, (int32) raw_length, *dst, cap, fw->dict,
								 fw->raw_literals) :
		fw->codec->compress(raw, (int32) raw_length, *dst, cap, fw->level);
	return clen;
}

/*
 * Whether a frame following one that did not compress is worth trying: its
 * first quarter (at most FRAMES_PROBE_BYTES) compresses at all.  Values
 * that do not compress (random floats, digests packed to their bits) cost
 * the codec three times as much per byte as values that do, for nothing;
 * a frame of such values says so in its first bytes.
 */
static bool
frame_worth_compressing(const FrameWriter *fw, const char *raw,
						uint32 raw_length)
{
	uint32		probe = Min(raw_length / 4, FRAMES_PROBE_BYTES);
	char	   *dst;
	int32		clen;

	if (!fw->last_raw || probe < FRAMES_PROBE_MIN_BYTES)
		return true;
	clen = compress_frame(fw, raw, probe, &dst);
	if (dst != NULL)
		pfree(dst);
	/* any gain: a quarter of a frame has less to refer back to */
	return clen >= 0 && (uint32) clen < probe;
}

void
frames_add(FrameWriter *fw, uint32 first_row, const char *raw,
		   uint32 raw_length)
{
	FrameEntry	e;
	const char *stored = raw;
	uint32		stored_length = raw_length;
	char	   *dst = NULL;

	if (fw->codec != NULL && fw->codec->id != CODEC_NONE &&
		frame_worth_compressing(fw, raw, raw_length))
	{
		int32		clen = compress_frame(fw, raw, raw_length, &dst);

		/* equal lengths mean "stored raw" */
		if (clen >= 0 && (uint32) clen < raw_length &&
			frames_compression_pays((uint32) clen, raw_length))
		{
			stored = dst;
			stored_length = (uint32) clen;
		}
	}
	fw->last_raw = stored == raw;

	e.first_row = first_row;
	e.raw_length = raw_length;
	e.stored_length = stored_length;
	e.checksum = checksum_bytes(stored, stored_length);
	appendBinaryStringInfo(&fw->entries, (const char *) &e, sizeof(e));
	appendBinaryStringInfo(&fw->data, stored, (int) stored_length);
	fw->nframes++;
	fw->raw_total += raw_length;
	if (dst != NULL)
		pfree(dst);
}

void
frames_finish(FrameWriter *fw, StringInfo out)
{
	appendBinaryStringInfo(out, (const char *) &fw->nframes, sizeof(uint32));
	appendBinaryStringInfo(out, fw->entries.data, fw->entries.len);
	appendBinaryStringInfo(out, fw->data.data, fw->data.len);
	frames_discard(fw);
}

void
frames_discard(FrameWriter *fw)
{
	pfree(fw->entries.data);
	pfree(fw->data.data);
}

const char *
frames_count(const char *head, uint64 stored_length, uint32 row_count,
			 uint32 *nframes)
{
	uint32		n;

	if (stored_length < sizeof(uint32))
		return "unit shorter than its frame count";
	memcpy(&n, head, sizeof(uint32));
	if (n == 0 || n > row_count)
		return "impossible frame count";
	if (FRAMES_HEADER_SIZE(n) > stored_length)
		return "frame directory runs past the end of the unit";
	*nframes = n;
	return NULL;
}

const char *
frames_directory(const char *entry_bytes, uint32 nframes,
				 uint64 stored_length, uint32 row_count, uint64 raw_total,
				 FrameEntry *entries, uint64 *offsets)
{
	uint64		offset = FRAMES_HEADER_SIZE(nframes);
	uint64		raw_sum = 0;
	uint32		i;

	if (offset > stored_length)
		return "frame directory runs past the end of the unit";
	memcpy(entries, entry_bytes, (Size) nframes * sizeof(FrameEntry));
	for (i = 0; i < nframes; i++)
	{
		const FrameEntry *e = &entries[i];

		if (i == 0 ? e->first_row != 0 : e->first_row <= entries[i - 1].first_row)
			return "frames do not start at increasing rows";
		if (e->first_row >= row_count)
			return "frame starts past the unit's last row";
		if (e->stored_length > e->raw_length || e->raw_length > FRAME_MAX_RAW_LENGTH)
			return "frame with impossible lengths";
		if (e->stored_length > stored_length - offset)
			return "frame runs past the end of the unit";
		offsets[i] = offset;
		offset += e->stored_length;
		raw_sum += e->raw_length;
	}
	if (offset != stored_length)
		return "unit has bytes after its last frame";
	if (raw_sum != raw_total)
		return "frames' uncompressed lengths do not add up to the unit's";
	return NULL;
}

const char *
frames_parse(const char *unit, uint64 stored_length, uint32 row_count,
			 uint64 raw_total, FrameDirectory *dir)
{
	const char *problem = frames_count(unit, stored_length, row_count,
									   &dir->nframes);

	if (problem != NULL)
		return problem;
	dir->entries = palloc(sizeof(FrameEntry) * dir->nframes);
	dir->offsets = palloc(sizeof(uint64) * dir->nframes);
	return frames_directory(unit + sizeof(uint32), dir->nframes, stored_length,
							row_count, raw_total, dir->entries, dir->offsets);
}

/*
 * The last frame starting at or before row.  Frames of a unit hold about
 * as many rows each, so the search starts where that puts the row and
 * widens from there until it brackets it: a unit of whole rows has
 * hundreds of frames, and a fetch by TID that bisected its directory took
 * a cache miss at every step (5% of a bitmap scan's fetches).
 */
uint32
frames_find(const FrameEntry *entries, uint32 nframes, uint32 row)
{
	uint32		lo = 0;
	uint32		hi = nframes;

	if (nframes > 8 && entries[nframes - 1].first_row > 0)
	{
		uint32		last = entries[nframes - 1].first_row;
		uint32		step = 1;

		lo = (uint32) Min((uint64) row * (nframes - 1) / last,
						  (uint64) nframes - 1);
		if (entries[lo].first_row <= row)
		{
			for (;;)
			{
				if (lo + step >= nframes)
				{
					hi = nframes;
					break;
				}
				if (entries[lo + step].first_row > row)
				{
					hi = lo + step;
					break;
				}
				lo += step;
				step *= 2;
			}
		}
		else
		{
			hi = lo;
			for (;;)
			{
				if (hi <= step)
				{
					lo = 0;
					break;
				}
				if (entries[hi - step].first_row <= row)
				{
					lo = hi - step;
					break;
				}
				hi -= step;
				step *= 2;
			}
		}
	}

	/* entries[lo] starts at or before row, entries[hi] (if any) after it */
	while (hi - lo > 1)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (entries[mid].first_row <= row)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const char *
frames_decode(const FrameEntry *e, const char *stored, const Codec *codec,
			  const CodecDict *dict, bool check_crc, char *raw)
{
	if (check_crc && checksum_bytes(stored, e->stored_length) != e->checksum)
		return "frame checksum mismatch";
	if (e->stored_length == e->raw_length)
	{
		memcpy(raw, stored, e->raw_length);
		return NULL;
	}
	if (codec == NULL || codec->id == CODEC_NONE)
		return "compressed frame in a unit stored without compression";
	if (dict != NULL ?
		!codec->decompress_dict(stored, (int32) e->stored_length, raw,
								(int32) e->raw_length, dict) :
		!codec->decompress(stored, (int32) e->stored_length, raw,
						   (int32) e->raw_length))
		return "compressed data cannot be decompressed";
	return NULL;
}

void
frames_dict_write(StringInfo out, const char *dict, uint32 length)
{
	uint32		checksum = checksum_bytes(dict, length);

	appendBinaryStringInfo(out, (const char *) &length, sizeof(uint32));
	appendBinaryStringInfo(out, (const char *) &checksum, sizeof(uint32));
	appendBinaryStringInfo(out, dict, (int) length);
}

const CodecDict *
frames_dict_train(const Codec *codec, int level, uint64 data_bytes,
				  const char *samples, const size_t *sample_sizes,
				  uint32 nsamples, char **dict, int32 *dictlen)
{
	int32		cap = (int32) Max(Min(data_bytes / 64, FRAMES_DICT_MAX_BYTES),
								  FRAMES_DICT_MIN_BYTES);
	size_t		workspace_size;
	const CodecDict *loaded = NULL;

	*dict = NULL;
	*dictlen = 0;
	if (codec->dict_train == NULL || nsamples == 0)
		return NULL;
	*dict = palloc(cap);
	*dictlen = codec->dict_train(samples, sample_sizes, nsamples, *dict, cap,
								 level);
	workspace_size = *dictlen > 0 ?
		codec->dict_workspace(*dictlen, true, level) : 0;

	/*
	 * Zeroed: zstd's match tables in it are not all written, and entries
	 * left over from earlier allocations were taken for candidate matches,
	 * so that the same rows loaded twice in one session (or by a parallel
	 * worker and by the backend) compressed to different bytes.
	 */
	if (workspace_size > 0)
		loaded = codec->dict_load(*dict, *dictlen, true, level,
								  palloc0(workspace_size), workspace_size);
	if (loaded == NULL)
	{
		pfree(*dict);
		*dict = NULL;
		*dictlen = 0;
	}
	return loaded;
}

const char *
frames_dict_header(const char *header, uint64 available, uint32 *length,
				   uint32 *checksum)
{
	if (available < FRAMES_DICT_HEADER_SIZE)
		return "dictionary runs past the end of the data holding it";
	memcpy(length, header, sizeof(uint32));
	memcpy(checksum, header + sizeof(uint32), sizeof(uint32));
	if (*length == 0 || *length > FRAMES_DICT_MAX_LENGTH)
		return "dictionary with an impossible length";
	if (*length > available - FRAMES_DICT_HEADER_SIZE)
		return "dictionary runs past the end of the data holding it";
	return NULL;
}

const char *
frames_dict_check(const char *dict, uint32 length, uint32 checksum)
{
	if (checksum_bytes(dict, length) != checksum)
		return "dictionary checksum mismatch";
	return NULL;
}
