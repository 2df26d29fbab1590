/*-------------------------------------------------------------------------
 *
 * shared_frames.c
 *	  Decompressed frames kept in shared memory, for every backend.
 *
 *	  Shared buffers hold our pages compressed, so a fetch by TID pays a
 *	  decompression where heap reads a cached page: a bitmap scan over a
 *	  fifth of a rowcompress table (the benchmark's JSONB @> query)
 *	  decompresses every frame of the table, 300 MB, and spent half of its
 *	  time in zstd, 2.2 times heap's time.  Each backend keeps frames it
 *	  meets again (format/frame_cache.c), but only a few tens of megabytes,
 *	  as a backend's memory must stay small, and nothing survives the
 *	  session.  This cache, sized by the postmaster-only
 *	  storage_engine.shared_frame_cache_size and there only when the
 *	  library is in shared_preload_libraries, keeps them once for all
 *	  backends, parallel workers included, as ClickHouse's uncompressed
 *	  cache does.  The backend's cache stays in front of it: it holds what
 *	  readers decode in place, and costs no lock.
 *
 *	  A frame is named as in the backend's cache, by where it lies and by
 *	  the checksums of its stored bytes (format/frame_cache.h); stored bytes
 *	  never change in place, so nothing needs invalidating, and the key
 *	  includes the database and tablespace.  Which frames are offered, and
 *	  how much a statement may push out, frame_cache.c decides.
 *
 *	  Layout: SHARED_FRAMES_PARTS partitions, each with its own lock, a ring
 *	  of frames in the order they came and a hash table from key to place in
 *	  the ring.  A frame is copied in and out whole under the lock (a
 *	  rowcompress frame of 20 kB takes microseconds), so no reader ever
 *	  holds a frame between calls: nothing to release on error, and the
 *	  oldest frame can always be pushed out.  A frame lies in one piece:
 *	  one that would not fit before the ring's end starts the next lap.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"

#include "format/shared_frames.h"
#include "guc.h"

#define SHARED_FRAMES_PART_BITS 4
#define SHARED_FRAMES_PARTS (1 << SHARED_FRAMES_PART_BITS)

/* The hash tables are sized for frames of this many bytes on average. */
#define SHARED_FRAMES_SLOT_BYTES 4096

#define TRANCHE_NAME "storage_engine shared frames"

/* Before each frame's bytes in a ring; span 0 ends the lap (filler). */
typedef struct FrameHead
{
	FrameCacheKey key;
	uint32		length;			/* the frame's bytes */
	uint32		span;			/* to the next frame: this head and bytes */
} FrameHead;

#define HEAD_SIZE	MAXALIGN(sizeof(FrameHead))

typedef struct FrameSlot
{
	FrameCacheKey key;
	uint64		at;				/* the frame's head, as a ring position */
} FrameSlot;

/*
 * One partition.  Ring positions only grow: a position's place is its
 * remainder by the ring's size, and the ring holds [tail, head).
 */
typedef struct FramePart
{
	uint64		head;
	uint64		tail;
} FramePart;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Set at startup (and inherited); NULL when the cache is off. */
static FramePart *parts = NULL;
static char *rings = NULL;
static HTAB *slots[SHARED_FRAMES_PARTS];
static LWLockPadded *locks = NULL;
static Size ring_size = 0;		/* of each partition */

/* The ring of each partition, from the setting. */
static Size
setting_ring_size(void)
{
	Size		bytes = (Size) storage_engine_shared_frame_cache_size * 1024;

	return TYPEALIGN_DOWN(MAXIMUM_ALIGNOF, bytes / SHARED_FRAMES_PARTS);
}

static long
ring_slots(Size ring)
{
	return Max(ring / SHARED_FRAMES_SLOT_BYTES, 64);
}

static Size
shmem_size(Size ring)
{
	Size		size = MAXALIGN(sizeof(FramePart) * SHARED_FRAMES_PARTS);

	size = add_size(size, mul_size(ring, SHARED_FRAMES_PARTS));
	return add_size(size, mul_size(hash_estimate_size(ring_slots(ring),
													  sizeof(FrameSlot)),
								   SHARED_FRAMES_PARTS));
}

static void
request_shmem(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	if (setting_ring_size() == 0)
		return;
	RequestAddinShmemSpace(shmem_size(setting_ring_size()));
	RequestNamedLWLockTranche(TRANCHE_NAME, SHARED_FRAMES_PARTS);
}

static void
startup_shmem(void)
{
	Size		ring = setting_ring_size();
	bool		found;
	int			i;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	parts = NULL;
	if (ring == 0)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	parts = ShmemInitStruct("storage_engine shared frames",
							MAXALIGN(sizeof(FramePart) * SHARED_FRAMES_PARTS) +
							ring * SHARED_FRAMES_PARTS, &found);
	rings = (char *) parts + MAXALIGN(sizeof(FramePart) * SHARED_FRAMES_PARTS);
	if (!found)
		memset(parts, 0, sizeof(FramePart) * SHARED_FRAMES_PARTS);
	for (i = 0; i < SHARED_FRAMES_PARTS; i++)
	{
		HASHCTL		ctl;
		char		name[64];

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(FrameCacheKey);
		ctl.entrysize = sizeof(FrameSlot);
		snprintf(name, sizeof(name), "storage_engine shared frames %d", i);
		slots[i] = ShmemInitHash(name, ring_slots(ring), ring_slots(ring),
								 &ctl, HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	}
	locks = GetNamedLWLockTranche(TRANCHE_NAME);
	ring_size = ring;
	LWLockRelease(AddinShmemInitLock);
}

void
shared_frames_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = request_shmem;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = startup_shmem;
}

Size
shared_frames_size(void)
{
	return parts != NULL ? ring_size * SHARED_FRAMES_PARTS : 0;
}

bool
shared_frames_fits(Size size)
{
	/* a frame over a sixteenth of its ring would push out too much */
	return parts != NULL && HEAD_SIZE + MAXALIGN(size) <= ring_size / 16;
}

/*
 * key's hash, by the hash tables' function (the same for all), and its
 * partition: the hash's top bits, as the tables take the low ones for
 * their buckets (the low ones would leave each table a sixteenth of its
 * buckets, and chains sixteen frames long).
 */
static uint32
hash_of(const FrameCacheKey *key, int *p)
{
	uint32		hash = get_hash_value(slots[0], key);

	*p = hash >> (32 - SHARED_FRAMES_PART_BITS);
	return hash;
}

static FrameHead *
head_at(int p, uint64 at)
{
	return (FrameHead *) (rings + ring_size * p + at % ring_size);
}

/* Pushes out partition p's oldest frame; false when it holds none. */
static bool
drop_oldest(int p, Size *dropped)
{
	FramePart  *part = &parts[p];
	Size		left = ring_size - part->tail % ring_size;
	FrameHead  *h;
	FrameSlot  *slot;
	uint32		hash;

	if (part->tail == part->head)
		return false;
	/* a lap's end too short for a head, or a filler: the next lap */
	if (left < HEAD_SIZE || head_at(p, part->tail)->span == 0)
	{
		part->tail += left;
		return true;
	}
	h = head_at(p, part->tail);
	hash = get_hash_value(slots[p], &h->key);
	slot = hash_search_with_hash_value(slots[p], &h->key, hash, HASH_FIND,
									   NULL);
	if (slot != NULL && slot->at == part->tail)
		hash_search_with_hash_value(slots[p], &h->key, hash, HASH_REMOVE,
									NULL);
	*dropped += h->length;
	part->tail += h->span;
	return true;
}

/*
 * key's frame, with its partition's lock held shared (*p: the partition),
 * or NULL with the lock released.
 */
static FrameHead *
find_locked(const FrameCacheKey *key, int *p)
{
	uint32		hash = hash_of(key, p);
	FrameSlot  *slot;

	LWLockAcquire(&locks[*p].lock, LW_SHARED);
	slot = hash_search_with_hash_value(slots[*p], key, hash, HASH_FIND, NULL);
	if (slot == NULL)
	{
		LWLockRelease(&locks[*p].lock);
		return NULL;
	}
	return head_at(*p, slot->at);
}

bool
shared_frames_get(const FrameCacheKey *key, char *raw)
{
	int			p;
	FrameHead  *h;
	bool		hit;

	if (parts == NULL || (h = find_locked(key, &p)) == NULL)
		return false;
	hit = h->length == key->entry.raw_length;
	if (hit)
		memcpy(raw, (char *) h + HEAD_SIZE, h->length);
	LWLockRelease(&locks[p].lock);
	return hit;
}

char *
shared_frames_copy(const FrameCacheKey *key, Size *size)
{
	int			p;
	FrameHead  *h;
	char	   *copy;

	if (parts == NULL || (h = find_locked(key, &p)) == NULL)
		return NULL;
	/* an error here releases the lock (LWLockReleaseAll at abort) */
	copy = palloc(Max(h->length, 1));
	memcpy(copy, (char *) h + HEAD_SIZE, h->length);
	*size = h->length;
	LWLockRelease(&locks[p].lock);
	return copy;
}

bool
shared_frames_put(const FrameCacheKey *key, const void *bytes, Size size,
				  Size *dropped)
{
	Size		span = HEAD_SIZE + MAXALIGN(size);
	int			p;
	uint32		hash;
	FramePart  *part;
	FrameSlot  *slot;
	FrameHead  *h;
	Size		left;
	Size		skip;
	bool		found;

	*dropped = 0;
	if (!shared_frames_fits(size))
		return false;
	hash = hash_of(key, &p);
	part = &parts[p];
	LWLockAcquire(&locks[p].lock, LW_EXCLUSIVE);
	if (hash_search_with_hash_value(slots[p], key, hash, HASH_FIND, NULL) != NULL)
	{
		LWLockRelease(&locks[p].lock);
		return false;
	}
	/* the frame lies in one piece: past the lap's end it starts the next */
	left = ring_size - part->head % ring_size;
	skip = left < span ? left : 0;
	while (part->head + skip + span - part->tail > ring_size)
		drop_oldest(p, dropped);
	if (skip > 0)
	{
		if (skip >= HEAD_SIZE)
			head_at(p, part->head)->span = 0;
		part->head += skip;
	}
	/* the hash table is full only of small frames: push out the oldest */
	while ((slot = hash_search_with_hash_value(slots[p], key, hash,
											   HASH_ENTER_NULL, &found)) == NULL)
	{
		if (!drop_oldest(p, dropped))
		{
			LWLockRelease(&locks[p].lock);
			return false;
		}
	}
	Assert(!found);
	slot->at = part->head;
	h = head_at(p, part->head);
	h->key = *key;
	h->length = (uint32) size;
	h->span = (uint32) span;
	memcpy((char *) h + HEAD_SIZE, bytes, size);
	part->head += span;
	LWLockRelease(&locks[p].lock);
	return true;
}
