/*-------------------------------------------------------------------------
 *
 * row_writer.h
 *	  Buffering rows as a batch and writing it compressed.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_WRITER_H
#define STORAGE_ENGINE_ROW_WRITER_H

#include "executor/tuptable.h"
#include "utils/relcache.h"

#include "format/pending_writes.h"

typedef struct RowWriter RowWriter;

/* The write buffer's operations for format/pending_writes.c. */
extern const PendingWriterOps row_writer_ops;

/* The current subtransaction's writer for rel (format/pending_writes.c). */
extern RowWriter *row_writer_for(Relation rel);

extern RowWriter *row_writer_create(Relation rel, MemoryContext parent);

/* Buffers one row; sets slot->tts_tid to its final TID. */
extern void row_writer_insert(RowWriter *writer, Relation rel,
							  TupleTableSlot *slot, CommandId cid);

/*
 * Writes the buffered rows as one batch (nothing when empty) and keeps
 * them, for pending_writes.c to buffer again if the subtransaction that
 * wrote them aborts; row_writer_clear forgets them.
 */
extern void row_writer_write(RowWriter *writer, Relation rel);
extern void row_writer_clear(RowWriter *writer);

/* Writes the buffered rows as one batch and forgets them. */
extern void row_writer_flush(RowWriter *writer, Relation rel);

extern uint64 row_writer_pending_rows(const RowWriter *writer);
extern int	row_writer_natts(const RowWriter *writer);
extern void row_writer_free(RowWriter *writer);

#endif							/* STORAGE_ENGINE_ROW_WRITER_H */
