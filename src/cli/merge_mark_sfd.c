/* `ensemble merge` on a font: each glyph with a conflict is flagged (a red
 * colour in FontForge's font view and a glyph comment naming every
 * conflicting property with both values), and where the conflict is in an
 * outline, the version the merge did not keep goes to the glyph's
 * background layer, as FontForge's Compare Fonts puts the other font's
 * outline there. The foreground holds the kept version. */
#include <stdlib.h>
#include <string.h>

#include "merge_mark.h"

#define S_MAX_COMMENT 16384

typedef struct {
  char *name;          /* the glyph's name */
  ens_id merged;       /* the glyph in the merged document */
  char *text;          /* the comment lines so far */
  size_t len;
  struct {
    const ens_doc *from; /* the side whose outline goes to the background */
    int64_t layer;
  } copy[8];
  size_t ncopy;
} s_glyph;

static int s_str_eq(ens_value v, const char *s) {
  return v.type == ENS_STR && v.u.s.len == strlen(s) && memcmp(v.u.s.ptr, s, v.u.s.len) == 0;
}

static const ens_obj *s_glyph_named(const ens_doc *doc, const char *name) {
  const ens_obj *root = ens_doc_root(doc);
  for (size_t i = 0; i < ens_obj_child_count(root); i++) {
    const ens_obj *g = ens_obj_child(root, i);
    ens_value v;
    if (strcmp(ens_obj_kind(g), "glyph") == 0 && ens_obj_get(g, "name", &v) == 0 && s_str_eq(v, name)) return g;
  }
  return NULL;
}

static const ens_obj *s_layer_of(const ens_obj *glyph, int64_t index) {
  for (size_t i = 0; glyph && i < ens_obj_child_count(glyph); i++) {
    const ens_obj *l = ens_obj_child(glyph, i);
    ens_value v;
    if (strcmp(ens_obj_kind(l), "layer") == 0 && ens_obj_get(l, "index", &v) == 0 && v.type == ENS_INT &&
        v.u.i == index)
      return l;
  }
  return NULL;
}

/* The glyph's name and the layer index from a path ("glyph a/layer 1/..."),
 * for an object theirs does not hold. */
static int s_from_path(const char *path, char *name, size_t size, int64_t *layer) {
  *layer = -1;
  if (strncmp(path, "glyph ", 6) != 0) return 0;
  const char *s = path + 6, *end = s + strlen(s);
  static const char *const steps[] = {"/layer ", "/anchor ", "/kern", "/raw"};
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    const char *p = strstr(s, steps[k]);
    if (p && p < end) end = p;
  }
  snprintf(name, size, "%.*s", (int)(end - s), s);
  if (strncmp(end, "/layer ", 7) == 0) *layer = strtoll(end + 7, NULL, 10);
  return 1;
}

static int s_add_line(s_glyph *g, const char *line) {
  size_t n = strlen(line);
  if (g->len + n + 2 > S_MAX_COMMENT) return 0; /* enough said: the report has them all */
  char *t = realloc(g->text, g->len + n + 2);
  if (!t) return -1;
  g->text = t;
  memcpy(g->text + g->len, line, n);
  g->len += n;
  g->text[g->len++] = '\n';
  g->text[g->len] = '\0';
  return 0;
}

/* Copies a contour of another document under node (properties and points,
 * kept text included, so it is written as that side wrote it). */
static int s_copy_contour(ens_doc *merged, ens_node *node, const ens_obj *c) {
  for (size_t i = 0; i < ens_obj_prop_count(c); i++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(c, i, &key, &v);
    if (ens_node_set(node, key, v)) return -1;
  }
  size_t n = ens_obj_child_count(c);
  for (size_t i = 0; i < n; i++) {
    const ens_obj *p = ens_obj_child(c, i);
    char *pos = ens_pos_seq(i, n);
    ens_id id = ens_doc_new_id(merged);
    ens_node *pn = pos && id ? ens_node_add_child(node, pos, id, ens_obj_kind(p)) : NULL;
    ens_free(pos);
    if (!pn) return -1;
    for (size_t k = 0; k < ens_obj_prop_count(p); k++) {
      const char *key;
      ens_value v;
      ens_obj_prop_at(p, k, &key, &v);
      if (v.type == ENS_REF) continue;
      if (ens_node_set(pn, key, v)) return -1;
    }
  }
  return 0;
}

/* The contours of from's layer into the merged glyph's background layer
 * (made when it has none). */
static int s_to_background(ens_doc *merged, ens_txn *txn, const ens_obj *mg, const ens_obj *from_layer) {
  size_t nc = 0;
  for (size_t i = 0; i < ens_obj_child_count(from_layer); i++)
    nc += strcmp(ens_obj_kind(ens_obj_child(from_layer, i)), "contour") == 0;
  if (!nc) return 0;
  const ens_obj *back = s_layer_of(mg, 0);
  ens_node *bn = NULL;
  char *pos = NULL;
  if (!back) {
    size_t at = ens_obj_child_count(mg);
    for (size_t i = 0; i < ens_obj_child_count(mg); i++)
      if (strcmp(ens_obj_kind(ens_obj_child(mg, i)), "layer") == 0) {
        at = i;
        break;
      }
    ens_id id = ens_doc_new_id(merged);
    if (!id || ens_doc_pos_at(merged, ens_obj_id(mg), at, &pos)) return -1;
    bn = ens_txn_insert(txn, ens_obj_id(mg), pos, id, "layer");
    ens_free(pos);
    if (!bn || ens_node_set(bn, "index", ens_int(0))) return -1;
  }
  size_t k = 0;
  for (size_t i = 0; i < ens_obj_child_count(from_layer); i++) {
    const ens_obj *c = ens_obj_child(from_layer, i);
    if (strcmp(ens_obj_kind(c), "contour") != 0) continue;
    ens_id id = ens_doc_new_id(merged);
    ens_node *cn = NULL;
    if (!id) return -1;
    if (bn) {
      pos = ens_pos_seq(k, nc);
      cn = pos ? ens_node_add_child(bn, pos, id, "contour") : NULL;
    } else {
      /* after whatever the background holds, in order */
      size_t nb = ens_obj_child_count(back);
      const char *last = nb ? ens_obj_pos(ens_obj_child(back, nb - 1)) : NULL;
      char *p = ens_pos_between(last, NULL);
      for (size_t j = 0; p && j < k; j++) {
        char *q = ens_pos_between(p, NULL);
        ens_free(p);
        p = q;
      }
      pos = p;
      cn = pos ? ens_txn_insert(txn, ens_obj_id(back), pos, id, "contour") : NULL;
    }
    ens_free(pos);
    if (!cn || s_copy_contour(merged, cn, c)) return -1;
    k++;
  }
  return 1;
}

int cli_merge_mark_sfd(ens_doc *merged, const ens_doc *ours, const ens_doc *theirs0,
                       const ens_merge_conflict *const *c, size_t n, ens_txn **out, cli_merge_marks *marks,
                       char *err, size_t esz) {
  s_glyph *gs = NULL;
  size_t ng = 0;
  int rc = -1;
  ens_txn *txn = ens_txn_new("Mark merge conflicts", NULL);
  *out = NULL;
  if (!txn) goto oom;
  for (size_t i = 0; i < n; i++) {
    const ens_merge_conflict *x = c[i];
    const ens_obj *t0 = x->id ? ens_doc_get(theirs0, x->id) : NULL;
    char name[512] = "";
    int64_t layer = -1;
    const ens_obj *g = t0;
    while (g && strcmp(ens_obj_kind(g), "glyph") != 0) {
      if (strcmp(ens_obj_kind(g), "layer") == 0) {
        ens_value v;
        if (ens_obj_get(g, "index", &v) == 0 && v.type == ENS_INT) layer = v.u.i;
      }
      g = ens_obj_parent(g);
    }
    if (g) {
      ens_value v;
      if (ens_obj_get(g, "name", &v) != 0 || v.type != ENS_STR) continue;
      snprintf(name, sizeof name, "%.*s", (int)v.u.s.len, v.u.s.ptr);
    } else if (!s_from_path(x->path, name, sizeof name, &layer)) {
      continue; /* the font's header: reported, not marked */
    }
    const ens_obj *mg = s_glyph_named(merged, name);
    if (!mg) continue; /* the glyph went: reported, not marked */
    s_glyph *e = NULL;
    for (size_t k = 0; k < ng && !e; k++)
      if (strcmp(gs[k].name, name) == 0) e = &gs[k];
    if (!e) {
      s_glyph *grown = realloc(gs, (ng + 1) * sizeof *gs);
      if (!grown) goto oom;
      gs = grown;
      e = &gs[ng++];
      memset(e, 0, sizeof *e);
      e->merged = ens_obj_id(mg);
      if (!(e->name = strdup(name))) goto oom;
      if (s_add_line(e, "Ensemble merge conflict (the kept version is drawn; the other one is in the background):"))
        goto oom;
    }
    /* one line per conflict: where in the glyph, what, both values */
    const char *where = x->path;
    size_t gl = strlen("glyph ") + strlen(name);
    if (strncmp(where, "glyph ", 6) == 0 && strlen(where) >= gl) where += gl + (where[gl] == '/');
    char line[1400], vb[200], vo[200], vt[200];
    const char *kept = x->ours_kept ? "ours" : "theirs";
    switch (x->kind) {
    case ENS_CONFLICT_SET:
    case ENS_CONFLICT_INSERT:
      cli_merge_value_str(theirs0, 0, x->base, vb, sizeof vb, 60);
      cli_merge_value_str(theirs0, 0, x->ours, vo, sizeof vo, 60);
      cli_merge_value_str(theirs0, 0, x->theirs, vt, sizeof vt, 60);
      snprintf(line, sizeof line, "%s%s%s: ours %s, theirs %s, base %s; %s kept", where, *where ? " " : "", x->key, vo,
               vt, x->kind == ENS_CONFLICT_INSERT ? "(new on both sides)" : vb, kept);
      break;
    case ENS_CONFLICT_DELETE:
      snprintf(line, sizeof line, "%s: deleted on one side, edited on the other; %s kept", *where ? where : "glyph",
               kept);
      break;
    case ENS_CONFLICT_MOVE:
      snprintf(line, sizeof line, "%s: order or place changed both ways; %s kept", *where ? where : "glyph", kept);
      break;
    }
    if (s_add_line(e, line)) goto oom;
    /* an outline: the version not kept goes to the background */
    const ens_doc *from = x->ours_kept ? theirs0 : ours;
    if (layer > 0 && e->ncopy < sizeof e->copy / sizeof e->copy[0]) {
      int dup = 0;
      for (size_t k = 0; k < e->ncopy; k++) dup |= e->copy[k].layer == layer && e->copy[k].from == from;
      if (!dup) {
        e->copy[e->ncopy].from = from;
        e->copy[e->ncopy].layer = layer;
        e->ncopy++;
      }
    }
  }
  for (size_t k = 0; k < ng; k++) {
    s_glyph *e = &gs[k];
    const ens_obj *mg = ens_doc_get(merged, e->merged);
    ens_value old;
    char *comment = NULL;
    if (ens_obj_get(mg, "comment", &old) == 0 && old.type == ENS_STR && old.u.s.len) {
      if (!(comment = malloc(old.u.s.len + e->len + 2))) goto oom;
      memcpy(comment, old.u.s.ptr, old.u.s.len);
      comment[old.u.s.len] = '\n';
      memcpy(comment + old.u.s.len + 1, e->text, e->len + 1);
    }
    size_t cl = comment ? strlen(comment) : e->len;
    while (cl && (comment ? comment : e->text)[cl - 1] == '\n') cl--;
    int bad = ens_txn_set(txn, e->merged, "comment", ens_strn(comment ? comment : e->text, cl)) ||
              ens_txn_set(txn, e->merged, "colour", ens_int(0xff0000));
    free(comment);
    if (bad) goto oom;
    marks->glyphs++;
    for (size_t j = 0; j < e->ncopy; j++) {
      const ens_obj *fl = s_layer_of(s_glyph_named(e->copy[j].from, e->name), e->copy[j].layer);
      if (!fl) continue;
      int r = s_to_background(merged, txn, mg, fl);
      if (r < 0) goto oom;
      marks->outlines += (size_t)r;
      /* one new background layer per glyph: later copies find it made */
      if (r > 0 && !s_layer_of(mg, 0) && j + 1 < e->ncopy) break;
    }
  }
  *out = txn;
  txn = NULL;
  rc = 0;
  goto done;
oom:
  snprintf(err, esz, "marking the conflicts: %s", ens_error_last());
done:
  for (size_t k = 0; k < ng; k++) {
    free(gs[k].name);
    free(gs[k].text);
  }
  free(gs);
  ens_txn_free(txn);
  return rc;
}
