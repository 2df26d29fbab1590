/*-------------------------------------------------------------------------
 *
 * guc.h
 *	  The extension's configuration parameters (storage_engine.*).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_GUC_H
#define STORAGE_ENGINE_GUC_H

extern void guc_define(void);

#endif							/* STORAGE_ENGINE_GUC_H */
