/*-------------------------------------------------------------------------
 *
 * relation_hooks.h
 *	  Reacting to DROP of relations of our access methods; which access
 *	  method of ours a relation uses.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_RELATION_HOOKS_H
#define STORAGE_ENGINE_RELATION_HOOKS_H

#include "format/storage_am.h"

extern void relation_hooks_init(void);

/* The record of rel's access method if it is one of ours, else NULL. */
extern const StorageAm *storage_am_for(Relation rel);

#endif							/* STORAGE_ENGINE_RELATION_HOOKS_H */
