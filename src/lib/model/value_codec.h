/* MessagePack form of property values, shared by snapshots and
 * transactions: nil, integers, float64, str, bin, booleans, and references
 * as extension type 1 holding the 8-byte big-endian id. */
#ifndef ENS_MODEL_VALUE_CODEC_H
#define ENS_MODEL_VALUE_CODEC_H

#include "../util/mpack.h"
#include "ensemble/model.h"

#define ENS_MP_EXT_REF 1

void ens__value_write(ens_buf *b, const ens_value *v);
/* Reads one value; strings point into the input. Returns 0 or ENS_EDECODE
 * (reader failed). */
int ens__value_read(ens_mp_reader *r, ens_value *v);

#endif
