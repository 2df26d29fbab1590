/*-------------------------------------------------------------------------
 *
 * col_tableam.h
 *	  The colcompress table access method.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_TABLEAM_H
#define STORAGE_ENGINE_COL_TABLEAM_H

#include "utils/relcache.h"

extern bool is_colcompress(Relation rel);

#endif							/* STORAGE_ENGINE_COL_TABLEAM_H */
