/*-------------------------------------------------------------------------
 *
 * relation_hooks.h
 *	  Reacting to DROP of relations of our access methods.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_RELATION_HOOKS_H
#define STORAGE_ENGINE_RELATION_HOOKS_H

extern void relation_hooks_init(void);

#endif							/* STORAGE_ENGINE_RELATION_HOOKS_H */
