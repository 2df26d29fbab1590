/*-------------------------------------------------------------------------
 *
 * col_writer.h
 *	  Buffering rows column by column and writing them as stripes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_WRITER_H
#define STORAGE_ENGINE_COL_WRITER_H

#include "executor/tuptable.h"
#include "utils/relcache.h"

#include "format/pending_writes.h"

typedef struct ColWriter ColWriter;

/* The write buffer's operations for format/pending_writes.c. */
extern const PendingWriterOps col_writer_ops;

/* The current subtransaction's writer for rel (format/pending_writes.c). */
extern ColWriter *col_writer_for(Relation rel);

extern ColWriter *col_writer_create(Relation rel, MemoryContext parent);

/* Buffers one row; sets slot->tts_tid to its final TID. */
extern void col_writer_insert(ColWriter *writer, Relation rel,
							  TupleTableSlot *slot, CommandId cid);

/* Write the rows in the order they come, whatever the orderby option. */
extern void col_writer_keep_order(ColWriter *writer);

/*
 * Writes the buffered rows as one stripe (nothing when empty) and keeps
 * them, for pending_writes.c to buffer again if the subtransaction that
 * wrote them aborts; col_writer_clear forgets them (keeping the arrays).
 */
extern void col_writer_write(ColWriter *writer, Relation rel);
extern void col_writer_clear(ColWriter *writer);

/* Writes the buffered rows as one stripe and forgets them. */
extern void col_writer_flush(ColWriter *writer, Relation rel);

extern uint64 col_writer_pending_rows(const ColWriter *writer);
extern int	col_writer_natts(const ColWriter *writer);
extern void col_writer_free(ColWriter *writer);

#endif							/* STORAGE_ENGINE_COL_WRITER_H */
