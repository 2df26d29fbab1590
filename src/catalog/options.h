/* TEMPORARY stub until the options module lands (defaults only). */
#ifndef STORAGE_ENGINE_OPTIONS_H
#define STORAGE_ENGINE_OPTIONS_H

typedef struct ColcompressOptions
{
	int32		stripe_row_limit;
	int32		chunk_group_row_limit;
	int			codec;
	int			compression_level;
	char	   *orderby;
	bool		index_scan;
} ColcompressOptions;

typedef struct RowcompressOptions
{
	int32		batch_size;
	int			codec;
	int			compression_level;
} RowcompressOptions;

extern void colcompress_options_get(Oid relid, ColcompressOptions *opts);
extern void rowcompress_options_get(Oid relid, RowcompressOptions *opts);
extern void options_install_hooks(void);

#endif
