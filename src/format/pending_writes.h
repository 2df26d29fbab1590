/*-------------------------------------------------------------------------
 *
 * pending_writes.h
 *	  Rows inserted but not yet written to storage, per relation and
 *	  subtransaction, for both access methods, and the moments they must
 *	  reach storage.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_PENDING_WRITES_H
#define STORAGE_ENGINE_PENDING_WRITES_H

#include "utils/relcache.h"

#include "format/row_runs.h"

/* What the registry needs from an access method's write buffer. */
typedef struct PendingWriterOps
{
	const char *am_name;
	void	   *(*create) (Relation rel, MemoryContext cxt);
	void		(*write) (void *writer, Relation rel);	/* keeps the rows */
	void		(*clear) (void *writer);	/* forgets them */
	uint64		(*pending_rows) (const void *writer);
	int			(*natts) (const void *writer);
	RowRunBuilder *(*rows) (void *writer);	/* its next rows' numbers */
	bool		(*holds_row) (void *writer, uint64 rownum);
	Size		(*memory) (const void *writer); /* memory it holds */
	void		(*free) (void *writer);
} PendingWriterOps;

/* Writes a write buffer's rows and forgets them. */
static inline void
pending_writer_flush(const PendingWriterOps *ops, void *writer, Relation rel)
{
	ops->write(writer, rel);
	ops->clear(writer);
}

extern void pending_writes_init(void);

/* The write buffer for inserts into rel by the current subtransaction. */
extern void *pending_writer(Relation rel, const PendingWriterOps *ops);

/*
 * Before a row is buffered: when the buffers of the transaction together
 * hold more than storage_engine.write_buffer_memory, writes the largest of
 * the current subtransaction's early and releases its memory.  Writers
 * obtained before the call may be gone after it.
 */
extern void pending_keep_within_budget(void);

/* Writes rel's pending rows so that a scan of rel sees them. */
extern void pending_flush_for_read(Relation rel);

/* Rows of rel this transaction buffers, not yet written. */
extern uint64 pending_row_count(Relation rel);

/* Does this transaction buffer row number rownum of rel? */
extern bool pending_holds_row(Relation rel, uint64 rownum);

/*
 * Writes the buffer holding row number rownum of rel, if this transaction
 * buffers it, so that fetching it by TID finds it.
 */
extern void pending_flush_row(Relation rel, uint64 rownum);

/* Grows whenever buffered rows are written: cached stream lists go stale. */
extern uint64 pending_flush_count;

/*
 * Forgets the rows pending for rel's current storage, which is emptied
 * for good (a TRUNCATE of storage made in the current subtransaction).
 * Storage replaced or dropped in a way a subtransaction abort undoes keeps
 * its rows pending, unread, until the transaction ends.
 */
extern void pending_forget(Relation rel);

#endif							/* STORAGE_ENGINE_PENDING_WRITES_H */
