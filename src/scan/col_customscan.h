/*-------------------------------------------------------------------------
 *
 * col_customscan.h
 *	  The ColcompressScan custom scan: projection, zone-map pruning and
 *	  parallel execution for colcompress tables.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_CUSTOMSCAN_H
#define STORAGE_ENGINE_COL_CUSTOMSCAN_H

extern void col_customscan_init(void);

#endif							/* STORAGE_ENGINE_COL_CUSTOMSCAN_H */
