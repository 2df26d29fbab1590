/*-------------------------------------------------------------------------
 *
 * checksum.h
 *	  The checksum every stored unit carries (a column chunk, a frame, a
 *	  row batch): CRC-32C, the same value as PostgreSQL's INIT_CRC32C,
 *	  COMP_CRC32C and FIN_CRC32C over the unit's stored bytes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SE_CHECKSUM_H
#define SE_CHECKSUM_H

extern uint32 checksum_bytes(const void *data, size_t len);

#endif
