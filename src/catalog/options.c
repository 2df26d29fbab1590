/* TEMPORARY stub until the options module lands (defaults only). */
#include "compat/compat.h"

#include "catalog/options.h"
#include "codec/codec.h"

void
colcompress_options_get(Oid relid, ColcompressOptions *opts)
{
	opts->stripe_row_limit = 150000;
	opts->chunk_group_row_limit = 10000;
	opts->codec = CODEC_ZSTD;
	opts->compression_level = 3;
	opts->orderby = NULL;
	opts->index_scan = true;
}

void
rowcompress_options_get(Oid relid, RowcompressOptions *opts)
{
	opts->batch_size = 10000;
	opts->codec = CODEC_ZSTD;
	opts->compression_level = 3;
}

void
options_install_hooks(void)
{
}
