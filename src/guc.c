/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  Defines every configuration parameter of the extension, in one place,
 *	  under the reserved prefix "storage_engine.".
 *
 *	  Each fast path of the engine gets a boolean here so that it can be
 *	  switched off and its results compared with the slow path.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "guc.h"

bool		storage_engine_enable_custom_scan = true;
bool		storage_engine_enable_pruning = true;
bool		storage_engine_enable_parallel_execution = true;
bool		storage_engine_enable_columnar_index_scan = true;
bool		storage_engine_enable_bitmap_projection = true;
bool		storage_engine_enable_index_projection = true;
bool		storage_engine_enable_vectorized_aggregation = true;
bool		storage_engine_enable_vectorized_filter = true;
bool		storage_engine_enable_dictionary_encoding = true;
bool		storage_engine_enable_packed_encoding = true;
bool		storage_engine_enable_parallel_encoding = true;
bool		storage_engine_enable_background_encoding = true;
double		storage_engine_vacuum_rewrite_threshold = 0.1;
int			storage_engine_max_parallel_participants = 0;
int			storage_engine_dictionary_cache_size = 16384;
int			storage_engine_frame_cache_size = 65536;
int			storage_engine_shared_frame_cache_size = 0;
int			storage_engine_write_buffer_memory = 262144;
int			storage_engine_min_parallel_encoding_size = 2048;
int			storage_engine_scan_helpers = 0;
int			storage_engine_scan_helper_idle_timeout = 60000;

void
guc_define(void)
{
	DefineCustomBoolVariable("storage_engine.enable_custom_scan",
							 "Use the ColcompressScan and RowcompressScan custom scans.",
							 "ColcompressScan reads only the columns a query uses and skips stripes and chunk groups by their zone maps; RowcompressScan skips batches by theirs, and counts the rows of a query that reads no column without reading the batches.",
							 &storage_engine_enable_custom_scan, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_pruning",
							 "Skip stripes, chunk groups and batches whose min/max statistics exclude the query's filter.",
							 NULL,
							 &storage_engine_enable_pruning, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_parallel_execution",
							 "Allow parallel scans of colcompress tables and parallel RowcompressScans.",
							 NULL,
							 &storage_engine_enable_parallel_execution, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_columnar_index_scan",
							 "Let the planner use index and bitmap scans on colcompress tables.",
							 "The table option index_scan = false does the same for one table.",
							 &storage_engine_enable_columnar_index_scan, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_bitmap_projection",
							 "Bitmap heap scans of colcompress tables decode only the columns the query reads.",
							 "The scan appears as ColcompressBitmapColumns above the Bitmap Heap Scan.",
							 &storage_engine_enable_bitmap_projection, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_index_projection",
							 "Index scans of colcompress tables decode only the columns the query reads, index-only scans none.",
							 "The scan appears as ColcompressIndexColumns above the Index Scan or Index Only Scan.",
							 &storage_engine_enable_index_projection, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_vectorized_aggregation",
							 "Aggregate colcompress scans a chunk group at a time.",
							 "An aggregation directly above a ColcompressScan (count, sum, avg, min, max of numbers, dates and timestamps, grouped by at most one column) appears as ColcompressVectorAgg; values it cannot compute exactly hand the query back to PostgreSQL's Aggregate.",
							 &storage_engine_enable_vectorized_aggregation, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_vectorized_filter",
							 "Evaluate filter clauses of colcompress scans on whole chunk groups.",
							 "Comparisons of integer, date and timestamp columns with values, LIKE 'prefix%', IS [NOT] NULL and leakproof comparisons run on the decoded column arrays; rows are built only for the rows that pass.",
							 &storage_engine_enable_vectorized_filter, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_dictionary_encoding",
							 "Write colcompress chunks of few distinct values dictionary-encoded.",
							 "A chunk of a variable-length column holding at most 256 distinct values is written as each frame's distinct values and a code of up to 8 bits per row.  Chunks already written are read either way.",
							 &storage_engine_enable_dictionary_encoding, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_packed_encoding",
							 "Write colcompress chunks of integers, numerics and strings of few symbols as packed values.",
							 "Each frame of an integer, date, time or timestamp column is written as a line and a fixed number of bits per row, so a fetch by TID reads its value by arithmetic, unless its differences compress to much less; numerics of one display scale likewise, as scaled integers, and strings of one length spelled with at most 16 distinct bytes as a few bits a character.  Off, integer-like chunks are written as differences and the others plain.  Chunks already written are read either way.",
							 &storage_engine_enable_packed_encoding, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_parallel_encoding",
							 "Encode the columns of a colcompress stripe in parallel workers.",
							 "A stripe of storage_engine.min_parallel_encoding_size or more has its columns encoded and compressed by the writing backend and up to max_parallel_maintenance_workers parallel workers side by side; the stripe is the same either way.",
							 &storage_engine_enable_parallel_encoding, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("storage_engine.enable_background_encoding",
							 "Encode a bulk load's colcompress stripes in a background worker while the backend goes on.",
							 "With storage_engine.enable_parallel_encoding and max_parallel_maintenance_workers above 0, a transaction whose stripes reach storage_engine.min_parallel_encoding_size starts one background worker that encodes each full stripe, or part of it, while the backend buffers the next stripe's rows, and takes part in encoding its last one; the worker ends with the transaction.  Off, every stripe is encoded while the backend waits, with parallel workers.  The stripes are the same either way.",
							 &storage_engine_enable_background_encoding, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("storage_engine.min_parallel_encoding_size",
							"Smallest colcompress stripe, in bytes of values, whose columns are encoded in parallel workers.",
							"Starting a worker takes a few milliseconds, about what encoding a megabyte takes.",
							&storage_engine_min_parallel_encoding_size, 2048, 0, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomRealVariable("storage_engine.vacuum_rewrite_threshold",
							 "Fraction of deleted rows at which VACUUM rewrites a stripe or batch.",
							 "VACUUM writes the live rows again and frees the old stripe or batch once no snapshot reads it; it also writes stripes or batches holding under a quarter of their row limit together, when there are two or more.  1 turns both off.",
							 &storage_engine_vacuum_rewrite_threshold, 0.1, 0.0, 1.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("storage_engine.max_parallel_participants",
							"Most processes a parallel scan of our tables plans: its workers and the leader, when it takes part.",
							"Our scans are bound by decompression, not I/O, so participants beyond the machine's cores only take turns on them, and each costs a process start.  0: the number of cores.",
							&storage_engine_max_parallel_participants, 0, 0, 1024,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("storage_engine.scan_helpers",
							"Most scan helpers a parallel scan of our tables takes in place of parallel workers.",
							"Scan helpers are background processes a session starts once and keeps (storage_engine.scan_helper_idle_timeout): a parallel aggregation over a colcompress or rowcompress scan hands its scan to them instead of starting parallel workers, which costs a process start and exit of a few milliseconds each time.  At most as many as the plan has workers.  0: parallel workers, as PostgreSQL plans them.",
							&storage_engine_scan_helpers, 0, 0, SCAN_HELPERS_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("storage_engine.scan_helper_idle_timeout",
							"How long a session's scan helper waits for work before it exits.",
							"Set when the helper starts.",
							&storage_engine_scan_helper_idle_timeout, 60000, 1, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("storage_engine.dictionary_cache_size",
							"Memory each session keeps compression dictionaries in, once loaded.",
							"Frames compressed with a stripe's or batch's zstd dictionary need it loaded; the least recently used are dropped to stay within this size.",
							&storage_engine_dictionary_cache_size, 16384, 0, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("storage_engine.frame_cache_size",
							"Memory each session keeps decompressed frames in for fetches by row number.",
							"An index or bitmap scan decompresses a frame of every column it returns; lookups of rows met before copy the frame from here instead.  The least recently used are dropped to stay within this size; 0 turns the cache off.",
							&storage_engine_frame_cache_size, 65536, 0, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	/* PostgreSQL refuses (FATAL) postmaster settings defined after startup */
	if (process_shared_preload_libraries_in_progress)
		DefineCustomIntVariable("storage_engine.shared_frame_cache_size",
								"Shared memory that keeps decompressed frames for every session.",
								"Frames a session keeps (storage_engine.frame_cache_size), colcompress frames of bitmap scans over many rows, and rowcompress batches that scans of tables taking at most half of it meet again are kept here, so that every session copies them instead of decompressing them again; the oldest are dropped first.  Needs the library in shared_preload_libraries; 0 turns the cache off.",
								&storage_engine_shared_frame_cache_size, 0, 0, MAX_KILOBYTES,
								PGC_POSTMASTER, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("storage_engine.write_buffer_memory",
							"Most memory a transaction's buffered inserts into colcompress and rowcompress tables take together.",
							"Inserted rows are buffered per table until a stripe or batch is full; past this, the largest buffer is written early as a shorter one, so that loading many tables or partitions at once stays within it.",
							&storage_engine_write_buffer_memory, 262144, 1024, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	MarkGUCPrefixReserved("storage_engine");
}
