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
 *	  the ring.  A frame lies in one piece: one that would not fit before
 *	  the ring's end starts the next lap.  A frame is copied out whole
 *	  under the lock (a rowcompress frame of 20 kB takes microseconds), so
 *	  such readers hold nothing between calls.  A rowcompress scan reads
 *	  its batches (3 MB each on the benchmark's events) in place instead:
 *	  copying them was a quarter of its time.  It pins the batch, which
 *	  then cannot be pushed out, until the memory context it names is reset
 *	  or deleted (as it is on error) or the backend exits.  A pinned frame
 *	  at the ring's tail stops that partition from taking new frames (they
 *	  are not kept) until it is unpinned: a scan holds a batch for about a
 *	  millisecond, but a cursor left open inside one holds it until it
 *	  moves on or its transaction ends.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "miscadmin.h"
#include "lib/ilist.h"
#include "port/atomics.h"
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
	pg_atomic_uint32 pins;		/* readers in place; taken under the lock */
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
	/* for engine.shared_frame_cache: since startup */
	pg_atomic_uint64 hits;		/* lookups that found their frame */
	pg_atomic_uint64 misses;
	uint64		stored;			/* under the exclusive lock */
	uint64		evicted;
} FramePart;

/* A pin this backend holds, in its context's memory. */
typedef struct FramePin
{
	FrameHead  *head;			/* NULL once unpinned */
	dlist_node	node;			/* in held_pins while pinned */
	MemoryContextCallback unpin;
} FramePin;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Set at startup (and inherited); NULL when the cache is off. */
static FramePart *parts = NULL;
static char *rings = NULL;
static HTAB *slots[SHARED_FRAMES_PARTS];
static LWLockPadded *locks = NULL;
static Size ring_size = 0;		/* of each partition */

static dlist_head held_pins = DLIST_STATIC_INIT(held_pins);
static bool unpin_at_exit = false;	/* the exit callback is registered */

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
	{
		memset(parts, 0, sizeof(FramePart) * SHARED_FRAMES_PARTS);
		for (i = 0; i < SHARED_FRAMES_PARTS; i++)
		{
			pg_atomic_init_u64(&parts[i].hits, 0);
			pg_atomic_init_u64(&parts[i].misses, 0);
		}
	}
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

/*
 * The frame at ring position at of partition p, and in *next where the
 * one after it starts; NULL at a lap's end too short for a head, or a
 * filler, whose next is the next lap.
 */
static FrameHead *
frame_at(int p, uint64 at, uint64 *next)
{
	Size		left = ring_size - at % ring_size;
	FrameHead  *h = left < HEAD_SIZE ? NULL : head_at(p, at);

	if (h == NULL || h->span == 0)
	{
		*next = at + left;
		return NULL;
	}
	*next = at + h->span;
	return h;
}

/*
 * Pushes out partition p's oldest frame; false when it holds none, or the
 * oldest is pinned.
 */
static bool
drop_oldest(int p, Size *dropped)
{
	FramePart  *part = &parts[p];
	uint64		next;
	FrameHead  *h;
	FrameSlot  *slot;
	uint32		hash;

	if (part->tail == part->head)
		return false;
	if ((h = frame_at(p, part->tail, &next)) == NULL)
	{
		part->tail = next;
		return true;
	}
	/* pins are taken under the shared lock, so none comes while we look */
	if (pg_atomic_read_u32(&h->pins) > 0)
		return false;
	hash = get_hash_value(slots[p], &h->key);
	slot = hash_search_with_hash_value(slots[p], &h->key, hash, HASH_FIND,
									   NULL);
	if (slot != NULL && slot->at == part->tail)
		hash_search_with_hash_value(slots[p], &h->key, hash, HASH_REMOVE,
									NULL);
	*dropped += h->length;
	part->evicted++;
	part->tail = next;
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
		pg_atomic_fetch_add_u64(&parts[*p].misses, 1);
		return NULL;
	}
	pg_atomic_fetch_add_u64(&parts[*p].hits, 1);
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

static void
unpin(FramePin *pin)
{
	if (pin->head == NULL)
		return;
	pg_atomic_fetch_sub_u32(&pin->head->pins, 1);
	pin->head = NULL;
	dlist_delete(&pin->node);
}

static void
unpin_callback(void *arg)
{
	unpin((FramePin *) arg);
}

/* A backend exiting (FATAL included) may not have freed its contexts. */
static void
unpin_all(int code, Datum arg)
{
	while (!dlist_is_empty(&held_pins))
		unpin(dlist_head_element(FramePin, node, &held_pins));
}

const char *
shared_frames_pin(const FrameCacheKey *key, Size *size, MemoryContext cxt)
{
	FramePin   *pin;
	FrameHead  *h;
	int			p;

	if (parts == NULL)
		return NULL;
	if (!unpin_at_exit)
	{
		before_shmem_exit(unpin_all, (Datum) 0);
		unpin_at_exit = true;
	}
	/* allocated first: nothing can fail once the frame is pinned */
	pin = MemoryContextAllocZero(cxt, sizeof(FramePin));
	if ((h = find_locked(key, &p)) == NULL)
	{
		pfree(pin);
		return NULL;
	}
	pg_atomic_fetch_add_u32(&h->pins, 1);
	pin->head = h;
	dlist_push_head(&held_pins, &pin->node);
	pin->unpin.func = unpin_callback;
	pin->unpin.arg = pin;
	MemoryContextRegisterResetCallback(cxt, &pin->unpin);
	LWLockRelease(&locks[p].lock);
	*size = h->length;
	return (char *) h + HEAD_SIZE;
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
	{
		if (!drop_oldest(p, dropped))
		{
			LWLockRelease(&locks[p].lock);
			return false;
		}
	}
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
	pg_atomic_init_u32(&h->pins, 0);
	memcpy((char *) h + HEAD_SIZE, bytes, size);
	part->head += span;
	part->stored++;
	LWLockRelease(&locks[p].lock);
	return true;
}

void
shared_frames_stats(SharedFramesStats *stats)
{
	int			p;

	memset(stats, 0, sizeof(*stats));
	if (parts == NULL)
		return;
	stats->size = ring_size * SHARED_FRAMES_PARTS;
	for (p = 0; p < SHARED_FRAMES_PARTS; p++)
	{
		FramePart  *part = &parts[p];
		uint64		at;
		uint64		next;

		LWLockAcquire(&locks[p].lock, LW_SHARED);
		stats->used += part->head - part->tail;
		for (at = part->tail; at < part->head; at = next)
		{
			FrameHead  *h = frame_at(p, at, &next);

			if (h == NULL)
				continue;
			stats->frames++;
			if (pg_atomic_read_u32(&h->pins) > 0)
				stats->pinned++;
		}
		stats->stored += part->stored;
		stats->evicted += part->evicted;
		LWLockRelease(&locks[p].lock);
		stats->hits += pg_atomic_read_u64(&part->hits);
		stats->misses += pg_atomic_read_u64(&part->misses);
	}
}
