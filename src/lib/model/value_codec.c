/* Property values to and from MessagePack (see value_codec.h). */
#include "value_codec.h"

#include "../util/error.h"

void ens__value_write(ens_buf *b, const ens_value *v) {
  switch (v->type) {
  case ENS_NIL: ens__mp_nil(b); break;
  case ENS_INT: ens__mp_int(b, v->u.i); break;
  case ENS_REAL: ens__mp_double(b, v->u.r); break;
  case ENS_STR: ens__mp_str(b, v->u.s.ptr, v->u.s.len); break;
  case ENS_BYTES: ens__mp_bin(b, v->u.s.ptr, v->u.s.len); break;
  case ENS_BOOL: ens__mp_bool(b, v->u.b); break;
  case ENS_REF: {
    unsigned char be[8];
    for (int i = 0; i < 8; i++) be[i] = (unsigned char)(v->u.ref >> (56 - 8 * i));
    ens__mp_ext(b, ENS_MP_EXT_REF, be, 8);
    break;
  }
  }
}

int ens__value_read(ens_mp_reader *r, ens_value *v) {
  ens_mp_item it;
  switch (ens__mp_read(r, &it)) {
  case ENS_MP_NIL: *v = ens_nil(); return 0;
  case ENS_MP_BOOL: *v = ens_bool(it.v.b); return 0;
  case ENS_MP_INT: *v = ens_int(it.v.i); return 0;
  case ENS_MP_FLOAT: *v = ens_real(it.v.f); return 0;
  case ENS_MP_STR: *v = ens_strn((const char *)it.data, it.len); return 0;
  case ENS_MP_BIN: *v = ens_bytes(it.data, it.len); return 0;
  case ENS_MP_EXT:
    if (it.ext_type == ENS_MP_EXT_REF && it.len == 8) {
      ens_id id = 0;
      for (int i = 0; i < 8; i++) id = (id << 8) | it.data[i];
      *v = ens_ref(id);
      return 0;
    }
    ens__mp_fail(r, "unknown extension type");
    break;
  case ENS_MP_UINT: ens__mp_fail(r, "integer beyond int64"); break;
  case ENS_MP_ERROR: break;
  default: ens__mp_fail(r, "expected a property value"); break;
  }
  *v = ens_nil();
  return ENS_EDECODE;
}
