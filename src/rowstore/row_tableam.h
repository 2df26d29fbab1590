/*-------------------------------------------------------------------------
 *
 * row_tableam.h
 *	  The rowcompress table access method.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_TABLEAM_H
#define STORAGE_ENGINE_ROW_TABLEAM_H

#include "utils/relcache.h"

extern bool is_rowcompress(Relation rel);

#endif							/* STORAGE_ENGINE_ROW_TABLEAM_H */
