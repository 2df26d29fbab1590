/*-------------------------------------------------------------------------
 *
 * storage.c
 *	  Byte streams in a relation's main fork, and its metapage.
 *
 *	  All table bytes live in standard pages of the relation's main fork,
 *	  read and written through shared buffers and WAL-logged, so crash
 *	  recovery, replicas, base backups and checksums work unchanged.
 *
 *	  Space is append-only.  A writer reserves a block range and a row
 *	  number range in the metapage (one short exclusive lock, WAL-logged as
 *	  a generic record), then fills its own blocks without holding any
 *	  shared lock: concurrent writers never touch each other's pages.  Data
 *	  pages are written whole, once, and logged as full page images.  A
 *	  reservation of a transaction that aborts is simply never referenced
 *	  by committed metadata; row numbers are never handed out twice.
 *
 *	  The metapage is created on first write, not at CREATE TABLE, so an
 *	  empty relation (new, truncated, or an unlogged one reset after a
 *	  crash) has no blocks at all, and a reset storage gets a new storage
 *	  id that no stale metadata row can match.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/generic_xlog.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/namespace.h"
#include "commands/sequence.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "codec/frames.h"
#include "format/frame_cache.h"
#include "format/lru_cache.h"
#include "format/recent_buffers.h"
#include "format/storage.h"
#include "format/storage_rewrite.h"

static StorageMeta *
meta_in_page(Page page)
{
	return (StorageMeta *) PageGetContents(page);
}

static void
check_meta(Relation rel, Page page, const StorageMeta *meta)
{
	if (PageIsNew(page) ||
		((PageHeader) page)->pd_lower < SizeOfPageHeaderData + STORAGE_META_MIN_SIZE ||
		meta->magic != STORAGE_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("metapage of table \"%s\" is damaged",
						RelationGetRelationName(rel)),
				 errhint("Restore the table from a backup.")));
	if (meta->version != STORAGE_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has storage format version %u, this library reads version %u",
						RelationGetRelationName(rel), meta->version,
						STORAGE_FORMAT_VERSION),
				 errhint("Install the storage_engine version that wrote the table.")));
}

/* The metapage's fields; those past the end of an older one are zero. */
static void
meta_from_page(Page page, StorageMeta *meta)
{
	Size		stored = ((PageHeader) page)->pd_lower - SizeOfPageHeaderData;

	memset(meta, 0, sizeof(StorageMeta));
	memcpy(meta, meta_in_page(page), Min(stored, sizeof(StorageMeta)));
}

bool
storage_read_meta(Relation rel, StorageMeta *meta)
{
	Buffer		buf;
	Page		page;

	if (RelationGetNumberOfBlocks(rel) == 0)
		return false;

	buf = ReadBuffer(rel, STORAGE_METAPAGE_BLOCK);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	/* A metapage still being created by a concurrent first writer. */
	if (PageIsNew(page))
	{
		UnlockReleaseBuffer(buf);
		return false;
	}
	check_meta(rel, page, meta_in_page(page));
	meta_from_page(page, meta);
	UnlockReleaseBuffer(buf);
	storage_rewrite_note(rel, meta);
	return true;
}

static uint64
next_storage_id(void)
{
	Oid			nsp = get_namespace_oid("engine", false);
	Oid			seq = get_relname_relid("storage_id_seq", nsp);

	if (!OidIsValid(seq))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("sequence engine.storage_id_seq does not exist"),
				 errhint("Re-create the extension storage_engine.")));
	return (uint64) nextval_internal(seq, false);
}

/*
 * The storage id taken from the sequence when the storage of one relation
 * was made.  CREATE TABLE AS, SELECT INTO and CREATE or REFRESH
 * MATERIALIZED VIEW make the table's storage, then run their query, in
 * parallel if the plan says so, and insert the rows in the leader while in
 * parallel mode, where nextval() is refused ("cannot execute nextval()
 * during a parallel operation"): the metapage made for the first row takes
 * the id reserved for its storage instead.  One storage's at a time: the
 * statements that write in parallel mode make their table's just before.
 */
static struct
{
	Oid			relid;
	RelFileNumber relnumber;
	uint64		id;
} reserved_id;

void
storage_reserve_id(Relation rel, RelFileNumber relnumber)
{
	reserved_id.relid = RelationGetRelid(rel);
	reserved_id.relnumber = relnumber;
	reserved_id.id = next_storage_id();
}

static uint64
take_storage_id(Relation rel)
{
	if (reserved_id.id != 0 && reserved_id.relid == RelationGetRelid(rel) &&
		reserved_id.relnumber == RelFileNumberOf(rel))
	{
		uint64		id = reserved_id.id;

		reserved_id.id = 0;
		return id;
	}
	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot create the storage of table \"%s\" during a parallel operation",
						RelationGetRelationName(rel)),
				 errhint("Disable parallel query for this statement.")));
	return next_storage_id();
}

uint64
storage_ensure_meta(Relation rel, StorageMeta *meta)
{
	Buffer		buf;
	GenericXLogState *state;
	Page		page;

	if (storage_read_meta(rel, meta))
		return meta->storage_id;

	LockRelationForExtension(rel, ExclusiveLock);
	if (RelationGetNumberOfBlocks(rel) == 0)
		compat_extend_main_fork_to(rel, 1);
	buf = ReadBuffer(rel, STORAGE_METAPAGE_BLOCK);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	if (PageIsNew(page))
	{
		StorageMeta fresh;

		memset(&fresh, 0, sizeof(fresh));
		fresh.magic = STORAGE_MAGIC;
		fresh.version = STORAGE_FORMAT_VERSION;
		fresh.storage_id = take_storage_id(rel);
		fresh.next_block = STORAGE_FIRST_DATA_BLOCK;
		fresh.next_row_number = STORAGE_FIRST_ROW_NUMBER;
		fresh.next_stream_num = 1;

		state = GenericXLogStart(rel);
		page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
		PageInit(page, BLCKSZ, 0);
		memcpy(meta_in_page(page), &fresh, sizeof(fresh));
		((PageHeader) page)->pd_lower = SizeOfPageHeaderData + sizeof(StorageMeta);
		GenericXLogFinish(state);
		page = BufferGetPage(buf);
	}
	check_meta(rel, page, meta_in_page(page));
	meta_from_page(page, meta);
	UnlockReleaseBuffer(buf);
	UnlockRelationForExtension(rel, ExclusiveLock);
	return meta->storage_id;
}

/*
 * Starts a WAL-logged change of rel's metapage (made first if need be)
 * under its exclusive lock: the page to change.  The caller finishes or
 * aborts *state, then releases *buf.
 */
static Page
meta_change_begin(Relation rel, Buffer *buf, GenericXLogState **state)
{
	StorageMeta meta;

	storage_ensure_meta(rel, &meta);
	*buf = ReadBuffer(rel, STORAGE_METAPAGE_BLOCK);
	LockBuffer(*buf, BUFFER_LOCK_EXCLUSIVE);
	check_meta(rel, BufferGetPage(*buf), meta_in_page(BufferGetPage(*buf)));
	*state = GenericXLogStart(rel);
	return GenericXLogRegisterBuffer(*state, *buf, 0);
}

void
storage_set_rewrite(Relation rel, TransactionId xid, TransactionId horizon)
{
	Buffer		buf;
	GenericXLogState *state;
	Page		page = meta_change_begin(rel, &buf, &state);
	StorageMeta *m = meta_in_page(page);

	m->rewrite_xid = xid;
	m->rewrite_horizon = horizon;
	/* an older metapage grows to hold the fields */
	((PageHeader) page)->pd_lower = SizeOfPageHeaderData + sizeof(StorageMeta);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);
}

/*
 * Advance the metapage's counters under its exclusive lock: for a stream
 * (stream_num not NULL), blocks by nblocks and the stream number by one;
 * otherwise row numbers by nrows.  Returns the first block or row number
 * reserved.
 */
static uint64
reserve(Relation rel, uint64 nrows, uint64 nblocks, uint64 *stream_num)
{
	Buffer		buf;
	GenericXLogState *state;
	StorageMeta *m = meta_in_page(meta_change_begin(rel, &buf, &state));
	uint64		first;

	if (stream_num != NULL)
	{
		first = m->next_block;
		if (first + nblocks > (uint64) MaxBlockNumber)
		{
			GenericXLogAbort(state);
			UnlockReleaseBuffer(buf);
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("table \"%s\" is out of blocks",
							RelationGetRelationName(rel))));
		}
		m->next_block += nblocks;
		*stream_num = m->next_stream_num++;
	}
	else
	{
		first = m->next_row_number;
		m->next_row_number += nrows;
	}
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);
	return first;
}

uint64
storage_reserve_rows(Relation rel, uint64 count)
{
	return reserve(rel, count, 0, NULL);
}

/*
 * Writes nblocks pages from block first on, whole, each logged as a full
 * page image: len bytes of data (NULL: none, empty pages) in page-sized
 * parts.  The bytes lie below pd_lower, so the page is standard and its
 * image leaves out the empty rest.
 */
static void
write_pages(Relation rel, uint64 first, uint64 nblocks, const char *data,
			uint64 len)
{
	bool		needs_wal = RelationNeedsWAL(rel);
	uint64		i;

	/* also when the blocks lie in a tail VACUUM truncated */
	compat_extend_main_fork_to(rel, (BlockNumber) (first + nblocks));
	for (i = 0; i < nblocks; i++)
	{
		uint64		off = i * STORAGE_PAGE_PAYLOAD;
		uint64		n = data == NULL ? 0 : Min(STORAGE_PAGE_PAYLOAD, len - off);
		Buffer		buf;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, (BlockNumber) (first + i),
								 RBM_ZERO_AND_LOCK, NULL);
		page = BufferGetPage(buf);

		START_CRIT_SECTION();
		PageInit(page, BLCKSZ, 0);
		if (n > 0)
			memcpy(PageGetContents(page), data + off, n);
		((PageHeader) page)->pd_lower = STORAGE_PAGE_HEADER + n;
		MarkBufferDirty(buf);
		if (needs_wal)
			log_newpage_buffer(buf, true);
		END_CRIT_SECTION();

		UnlockReleaseBuffer(buf);
	}
}

uint64
storage_reserve_empty_blocks(Relation rel, uint64 nblocks)
{
	uint64		stream_num;
	uint64		first = reserve(rel, 0, nblocks, &stream_num);

	write_pages(rel, first, nblocks, NULL, 0);
	return first;
}

uint64
storage_write_stream(Relation rel, uint64 at_block, const char *data,
					 uint64 len, uint64 *stream_num)
{
	uint64		nblocks = storage_stream_blocks(len);
	uint64		first;

	if (at_block == STORAGE_NEW_BLOCKS)
		first = reserve(rel, 0, nblocks, stream_num);
	else
	{
		/* blocks reserved long ago, given back by a rewrite */
		reserve(rel, 0, 0, stream_num);
		first = at_block;
	}
	write_pages(rel, first, nblocks, data, len);
	return first;
}

/*
 * The relation's size as this backend last saw it, kept in the relcache
 * entry (rd_amcache, freed with it: TRUNCATE's new relfilenode starts
 * afresh).  Asking the kernel on every read costs a system call per frame
 * an index lookup decodes.  A block below a size once seen is still
 * there: the relation shrinks only when VACUUM truncates its free end,
 * which no metadata points into; and a read past the real end still fails
 * in md.c with ERRCODE_DATA_CORRUPTED.
 */
static BlockNumber
relation_blocks_at_least(Relation rel, uint64 blk)
{
	BlockNumber *seen = (BlockNumber *) rel->rd_amcache;

	if (seen != NULL && blk < *seen)
		return *seen;
	if (seen == NULL)
	{
		seen = MemoryContextAlloc(CacheMemoryContext, sizeof(BlockNumber));
		rel->rd_amcache = seen;
	}
	*seen = RelationGetNumberOfBlocks(rel);
	return *seen;
}

void
storage_place_text(const StreamPlace *place, char *buf, size_t size)
{
	if (place->column != NULL)
		snprintf(buf, size, "%s " UINT64_FORMAT ", column \"%s\"",
				 place->unit, place->num, place->column);
	else
		snprintf(buf, size, "%s " UINT64_FORMAT, place->unit, place->num);
}

static void
stream_damaged(Relation rel, const StreamPlace *place, uint64 blk,
			   const char *what, BlockNumber nblocks)
{
	char		text[NAMEDATALEN + 64];

	storage_place_text(place, text, sizeof(text));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("data of table \"%s\" is damaged",
					RelationGetRelationName(rel)),
			 nblocks != InvalidBlockNumber ?
			 errdetail("%s: block " UINT64_FORMAT " is outside the relation (%u blocks).",
					   text, blk, nblocks) :
			 errdetail("%s: block " UINT64_FORMAT " %s.", text, blk, what)));
}

static void view_end(StoragePin *pin);

void
storage_pin_release(StoragePin *pin)
{
	view_end(pin);
	if (BufferIsValid(pin->buffer))
		ReleaseBuffer(pin->buffer);
	pin->buffer = InvalidBuffer;
}

/*
 * Block blk of a stream, pinned (the one *pin holds when it is that block)
 * and share-locked, checked to hold n bytes from in_page.  With a pin, the
 * pin holds the buffer on return; without, the caller releases it.
 */
static Buffer
lock_stream_page(Relation rel, uint64 blk, uint64 in_page, uint64 n,
				 BufferAccessStrategy strategy, const StreamPlace *place,
				 StoragePin *pin)
{
	Buffer		buf;
	Page		page;
	uint16		lower;

	if (pin != NULL && BufferIsValid(pin->buffer) && pin->block == blk)
		buf = pin->buffer;
	else
	{
		BlockNumber nblocks = relation_blocks_at_least(rel, blk);

		if (blk < STORAGE_FIRST_DATA_BLOCK || blk >= nblocks)
			stream_damaged(rel, place, blk, NULL, nblocks);
		buf = recent_buffer_read(rel, (BlockNumber) blk, strategy);
	}
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	lower = ((PageHeader) page)->pd_lower;
	if (PageIsNew(page) || lower > BLCKSZ ||
		lower < STORAGE_PAGE_HEADER ||
		in_page + n > (uint64) (lower - STORAGE_PAGE_HEADER))
	{
		UnlockReleaseBuffer(buf);
		if (pin != NULL && pin->buffer == buf)
			pin->buffer = InvalidBuffer;
		stream_damaged(rel, place, blk,
					   "holds fewer bytes than its metadata says",
					   InvalidBlockNumber);
	}
	if (pin != NULL && pin->buffer != buf)
	{
		storage_pin_release(pin);
		pin->buffer = buf;
		pin->block = blk;
	}
	return buf;
}

void
storage_read_stream_pinned(Relation rel, uint64 first_block, uint64 offset,
						   char *dest, uint64 len,
						   BufferAccessStrategy strategy,
						   const StreamPlace *place, StoragePin *pin)
{
	Assert(pin == NULL || !pin->viewing);
	while (len > 0)
	{
		uint64		blk = first_block + offset / STORAGE_PAGE_PAYLOAD;
		uint64		in_page = offset % STORAGE_PAGE_PAYLOAD;
		uint64		n = Min(len, STORAGE_PAGE_PAYLOAD - in_page);
		Buffer		buf = lock_stream_page(rel, blk, in_page, n, strategy,
										   place, pin);

		memcpy(dest, PageGetContents(BufferGetPage(buf)) + in_page, n);
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (pin == NULL)
			ReleaseBuffer(buf);

		dest += n;
		offset += n;
		len -= n;
	}
}

/*
 * The len bytes at offset of the stream: a pointer into the page holding
 * them when one page does, that page then pinned in *pin and share-locked
 * until view_end (raise no error before it); else a copy in dest (room for
 * len).
 */
static const char *
view_stream(Relation rel, uint64 first_block, uint64 offset,
			char *dest, uint64 len, BufferAccessStrategy strategy,
			const StreamPlace *place, StoragePin *pin)
{
	uint64		in_page = offset % STORAGE_PAGE_PAYLOAD;
	Buffer		buf;

	Assert(!pin->viewing);
	if (len == 0 || in_page + len > STORAGE_PAGE_PAYLOAD)
	{
		storage_read_stream_pinned(rel, first_block, offset, dest, len,
								   strategy, place, pin);
		return dest;
	}
	buf = lock_stream_page(rel, first_block + offset / STORAGE_PAGE_PAYLOAD,
						   in_page, len, strategy, place, pin);
	pin->viewing = true;
	return PageGetContents(BufferGetPage(buf)) + in_page;
}

static void
view_end(StoragePin *pin)
{
	if (pin->viewing)
		LockBuffer(pin->buffer, BUFFER_LOCK_UNLOCK);
	pin->viewing = false;
}

const char *
storage_decode_frame(Relation rel, uint64 first_block, uint64 offset,
					 uint32 unit_checksum, const FrameEntry *e,
					 const Codec *codec, const CodecDict *dict, char *copy,
					 char *raw, FrameKeep keep, BufferAccessStrategy strategy,
					 const StreamPlace *place, StoragePin *pin)
{
	StoragePin	own = {InvalidBuffer, 0, false};
	StoragePin *p = pin != NULL ? pin : &own;
	FrameCacheKey key;
	const char *bytes;
	const char *problem;

	frame_cache_key(&key, rel, first_block, offset, unit_checksum, e);
	/* only readers that keep frames find them there */
	if (keep != FRAME_KEEP_NONE && frame_cache_get(&key, raw))
		return NULL;
	/* the page stays locked while the frame decodes: nothing may raise */
	bytes = view_stream(rel, first_block, offset, copy, e->stored_length,
						strategy, place, p);
	problem = frames_decode(e, bytes, codec, dict, true, raw);
	view_end(p);
	if (p == &own)
		storage_pin_release(&own);
	if (problem != NULL || keep == FRAME_KEEP_NONE)
		return problem;
	if (keep == FRAME_KEEP_ALL || e->stored_length != e->raw_length)
		frame_cache_offer(&key, raw, e->raw_length, keep);
	return NULL;
}

BufferAccessStrategy
storage_scan_strategy(Relation rel)
{
	if (RelationGetNumberOfBlocks(rel) > (BlockNumber) (NBuffers / 4))
		return GetAccessStrategy(BAS_BULKREAD);
	return NULL;
}

void
storage_read_stream(Relation rel, uint64 first_block, uint64 offset,
					char *dest, uint64 len, BufferAccessStrategy strategy,
					const StreamPlace *place)
{
	storage_read_stream_pinned(rel, first_block, offset, dest, len, strategy,
							   place, NULL);
}

/* A directory of up to this many frames is read with the frame count. */
#define DIRECTORY_PREFIX_BYTES	FRAMES_HEADER_SIZE(31)

/*
 * Fetches by row number keep the directories they read for the backend's
 * life (4 MB, least recently used dropped): the directory of a rowcompress
 * batch of 10,000 rows in 6 kB frames is 9 kB of pages read and checked
 * entry by entry, for every statement that fetches a row of the batch.  A
 * directory is named by everything that places and checks its unit,
 * including the checksum of the unit's stored bytes, so a unit written
 * later in the same blocks (after VACUUM freed them, or in a file reused
 * after DROP) is not mistaken for it.
 */
#define DIRECTORY_CACHE_BYTES	(4 * 1024 * 1024)

typedef struct DirectoryKey
{
	CompatRelFileLocator file;
	uint32		row_count;
	uint32		unit_checksum;
	uint64		first_block;
	uint64		offset;
	uint64		stored_length;
	uint64		raw_total;
} DirectoryKey;

static LruCache *directory_cache = NULL;

/* A cached directory: nframes, then the entries, then the offsets. */
#define CACHED_ENTRIES_AT	MAXALIGN(sizeof(uint32))

static void
cache_directory(const DirectoryKey *key, const FrameDirectory *dir)
{
	Size		entries_size = sizeof(FrameEntry) * (Size) dir->nframes;
	Size		size = CACHED_ENTRIES_AT + entries_size +
		sizeof(uint64) * (Size) dir->nframes;
	char	   *value = palloc(size);

	if (directory_cache == NULL)
		directory_cache = lru_cache_create("storage_engine frame directories",
										   sizeof(DirectoryKey),
										   DIRECTORY_CACHE_BYTES);
	memcpy(value, &dir->nframes, sizeof(uint32));
	memcpy(value + CACHED_ENTRIES_AT, dir->entries, entries_size);
	memcpy(value + CACHED_ENTRIES_AT + entries_size, dir->offsets,
		   sizeof(uint64) * (Size) dir->nframes);
	lru_cache_put(directory_cache, key, value, size);
	pfree(value);
}

/* The cached directory of key: its entries and offsets in place. */
static bool
cached_directory(const DirectoryKey *key, uint32 *nframes,
				 const FrameEntry **entries, const uint64 **offsets)
{
	const char *value = directory_cache == NULL ? NULL :
		lru_cache_get(directory_cache, key);

	if (value == NULL)
		return false;
	memcpy(nframes, value, sizeof(uint32));
	*entries = (const FrameEntry *) (value + CACHED_ENTRIES_AT);
	*offsets = (const uint64 *) (value + CACHED_ENTRIES_AT +
								 sizeof(FrameEntry) * (Size) *nframes);
	return true;
}

static void
directory_key(DirectoryKey *key, Relation rel, uint64 first_block,
			  uint64 offset, uint64 stored_length, uint32 row_count,
			  uint64 raw_total, uint32 unit_checksum)
{
	memset(key, 0, sizeof(*key));
	key->file = RelationPhysicalId(rel);
	key->row_count = row_count;
	key->unit_checksum = unit_checksum;
	key->first_block = first_block;
	key->offset = offset;
	key->stored_length = stored_length;
	key->raw_total = raw_total;
}

/* Reads, checks and caches the directory of key's unit into dir. */
static const char *
read_directory(Relation rel, const DirectoryKey *key,
			   BufferAccessStrategy strategy, const StreamPlace *place,
			   FrameDirectory *dir)
{
	uint64		prefix_len = Min(key->stored_length, DIRECTORY_PREFIX_BYTES);
	char		prefix[DIRECTORY_PREFIX_BYTES];
	char	   *bytes = prefix;
	const char *problem;

	storage_read_stream(rel, key->first_block, key->offset, prefix,
						prefix_len, strategy, place);
	problem = frames_count(prefix, key->stored_length, key->row_count,
						   &dir->nframes);
	if (problem != NULL)
		return problem;
	if (FRAMES_HEADER_SIZE(dir->nframes) > prefix_len)
	{
		bytes = palloc(FRAMES_HEADER_SIZE(dir->nframes));
		storage_read_stream(rel, key->first_block, key->offset, bytes,
							FRAMES_HEADER_SIZE(dir->nframes), strategy, place);
	}
	problem = frames_parse(bytes, key->stored_length, key->row_count,
						   key->raw_total, dir);
	if (bytes != prefix)
		pfree(bytes);
	if (problem == NULL)
		cache_directory(key, dir);
	return problem;
}

static void
spot_frame(const FrameEntry *entries, const uint64 *offsets, uint32 nframes,
		   uint32 row_count, uint32 row, FrameSpot *spot)
{
	spot->index = frames_find(entries, nframes, row);
	spot->entry = entries[spot->index];
	spot->offset = offsets[spot->index];
	spot->nrows = frames_rows(entries, nframes, spot->index, row_count);
}

const char *
storage_find_frame(Relation rel, uint64 first_block, uint64 offset,
				   uint64 stored_length, uint32 row_count, uint64 raw_total,
				   uint32 unit_checksum, BufferAccessStrategy strategy,
				   const StreamPlace *place, uint32 row,
				   FrameDirectoryHint *hint, FrameSpot *spot)
{
	DirectoryKey key;
	FrameDirectory dir;
	const FrameEntry *entries;
	const uint64 *offsets;
	const char *problem;

	/* the row number comes from metadata too */
	if (row >= row_count)
		return "a row number points past the end of its unit";
	if (hint != NULL && hint->valid &&
		hint->drops == lru_cache_drops(directory_cache) &&
		hint->first_block == first_block && hint->offset == offset &&
		hint->unit_checksum == unit_checksum &&
		CompatRelFileLocatorEquals(hint->file, RelationPhysicalId(rel)))
	{
		spot_frame(hint->entries, hint->offsets, hint->nframes, row_count,
				   row, spot);
		return NULL;
	}
	directory_key(&key, rel, first_block, offset, stored_length, row_count,
				  raw_total, unit_checksum);
	if (cached_directory(&key, &dir.nframes, &entries, &offsets))
	{
		if (hint != NULL)
		{
			hint->valid = true;
			hint->drops = lru_cache_drops(directory_cache);
			hint->file = key.file;
			hint->first_block = first_block;
			hint->offset = offset;
			hint->unit_checksum = unit_checksum;
			hint->nframes = dir.nframes;
			hint->entries = entries;
			hint->offsets = offsets;
		}
		spot_frame(entries, offsets, dir.nframes, row_count, row, spot);
		return NULL;
	}
	problem = read_directory(rel, &key, strategy, place, &dir);
	if (problem != NULL)
		return problem;
	spot_frame(dir.entries, dir.offsets, dir.nframes, row_count, row, spot);
	pfree(dir.entries);
	pfree(dir.offsets);
	return NULL;
}

/* xid as a FullTransactionId: no older than one epoch before the next. */
static FullTransactionId
full_xid_of(TransactionId xid)
{
	FullTransactionId next = ReadNextFullTransactionId();
	uint32		epoch = EpochFromFullTransactionId(next);

	if (xid > XidFromFullTransactionId(next) && epoch > 0)
		epoch--;
	return FullTransactionIdFromEpochAndXid(epoch, xid);
}

void
storage_log_reuse_conflict(Relation rel, TransactionId horizon)
{
	xl_btree_reuse_page xlrec;

	if (!XLogStandbyInfoActive() || !RelationNeedsWAL(rel) ||
		!TransactionIdIsNormal(horizon))
		return;
	compat_reuse_page_record(&xlrec, rel, STORAGE_METAPAGE_BLOCK,
							 full_xid_of(horizon));
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfBtreeReusePage);
	XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE);
}
