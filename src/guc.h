/*-------------------------------------------------------------------------
 *
 * guc.h
 *	  The extension's configuration parameters (storage_engine.*).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_GUC_H
#define STORAGE_ENGINE_GUC_H

extern bool storage_engine_enable_custom_scan;
extern bool storage_engine_enable_pruning;
extern bool storage_engine_enable_parallel_execution;
extern bool storage_engine_enable_columnar_index_scan;
extern bool storage_engine_enable_bitmap_projection;
extern bool storage_engine_enable_index_projection;
extern bool storage_engine_enable_vectorized_aggregation;
extern bool storage_engine_enable_vectorized_filter;
extern bool storage_engine_enable_dictionary_encoding;
extern bool storage_engine_enable_packed_encoding;
extern bool storage_engine_enable_parallel_encoding;
extern bool storage_engine_enable_background_encoding;
extern double storage_engine_vacuum_rewrite_threshold;
extern int	storage_engine_max_parallel_participants;
extern int	storage_engine_dictionary_cache_size;
extern int	storage_engine_frame_cache_size;
extern int	storage_engine_shared_frame_cache_size;
extern int	storage_engine_write_buffer_memory;
extern int	storage_engine_min_parallel_encoding_size;
extern int	storage_engine_scan_helpers;
extern int	storage_engine_scan_helper_idle_timeout;

/* most scan helpers a session keeps (scan/scan_helpers.c) */
#define SCAN_HELPERS_MAX 8

extern void guc_define(void);

#endif							/* STORAGE_ENGINE_GUC_H */
