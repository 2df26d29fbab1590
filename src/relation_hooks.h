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

#endif							/* STORAGE_ENGINE_RELATION_HOOKS_H */
