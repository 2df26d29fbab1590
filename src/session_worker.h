/*-------------------------------------------------------------------------
 *
 * session_worker.h
 *	  Background workers a session starts for itself (session_worker.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_SESSION_WORKER_H
#define STORAGE_ENGINE_SESSION_WORKER_H

#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/shm_toc.h"

/* Whose the worker is: the first thing in its segment, at key 1. */
typedef struct SessionWorkerHeader
{
	Oid			database;
	Oid			user;
	int			session_pid;
} SessionWorkerHeader;

#define SESSION_WORKER_KEY_HEADER 1

extern void session_worker_fill_header(SessionWorkerHeader *header);
extern bool session_worker_register(const char *function, const char *type,
									dsm_segment *seg,
									BackgroundWorkerHandle **handle);
extern shm_toc *session_worker_attach(Datum arg, uint64 magic, const char *type,
									  dsm_segment **seg);

#endif							/* STORAGE_ENGINE_SESSION_WORKER_H */
