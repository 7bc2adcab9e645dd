/* The SVG reader's values against libxml2's own tree, over the drawings
 * bundled in tests/resources and over the corpus when it is there:
 * for every element its name and attributes (namespace declarations
 * included, values as libxml2 gives them with entities expanded), and
 * every text, CDATA, comment and processing instruction in the same
 * order with the same content. The scanner reads what libxml2 accepted,
 * so this is what proves the two read the same document. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libxml/entities.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "ensemble.h"
#include "testutil.h"

static const char *const s_dirs[] = {"resvg-tests", "librsvg", "mdi/svg", "large", "history"};

static char s_why[512];

static int s_val_is(const ens_obj *o, const char *key, const char *want) {
  ens_value v;
  if (ens_obj_get(o, key, &v) != 0 || v.type != ENS_STR) return 0;
  return v.u.s.len == strlen(want) && memcmp(v.u.s.ptr, want, v.u.s.len) == 0;
}

static int s_attr_count(const ens_obj *o) {
  int n = 0;
  for (size_t i = 0; i < ens_obj_prop_count(o); i++) {
    const char *key;
    ens_value v;
    ens_obj_prop_at(o, i, &key, &v);
    if (key[0] != '~' && v.type != ENS_NIL) n++;
  }
  return n;
}

static int s_same(xmlDocPtr xd, xmlNodePtr x, const ens_obj *o);

/* Children in order; libxml2's entity reference nodes match #entity. */
static int s_kids(xmlDocPtr xd, xmlNodePtr first, const ens_obj *o) {
  size_t i = 0, n = ens_obj_child_count(o);
  for (xmlNodePtr c = first; c; c = c->next) {
    if (c->type == XML_DTD_NODE) {
      if (i < n && strcmp(ens_obj_kind(ens_obj_child(o, i)), ENS_SVG_DOCTYPE) == 0) i++;
      continue;
    }
    if (i >= n) {
      snprintf(s_why, sizeof s_why, "libxml2 has more children under %s", ens_obj_kind(o));
      return 0;
    }
    if (!s_same(xd, c, ens_obj_child(o, i++))) return 0;
  }
  /* before the root element, libxml2 keeps no whitespace, nor the XML declaration */
  return 1;
}

static int s_same(xmlDocPtr xd, xmlNodePtr x, const ens_obj *o) {
  const char *kind = ens_obj_kind(o);
  char name[512];
  switch (x->type) {
  case XML_ELEMENT_NODE: {
    snprintf(name, sizeof name, "%s%s%s", x->ns && x->ns->prefix ? (const char *)x->ns->prefix : "",
             x->ns && x->ns->prefix ? ":" : "", (const char *)x->name);
    if (strcmp(name, kind) != 0) {
      snprintf(s_why, sizeof s_why, "element %s is %s in the model", name, kind);
      return 0;
    }
    int count = 0;
    for (xmlNsPtr ns = x->nsDef; ns; ns = ns->next, count++) {
      snprintf(name, sizeof name, "xmlns%s%s", ns->prefix ? ":" : "", ns->prefix ? (const char *)ns->prefix : "");
      const char *href = ns->href ? (const char *)ns->href : "";
      /* Without entity substitution libxml2 takes xmlns="&ns_svg;" (Adobe
       * Illustrator writes those) as the URI "&ns_svg;", while XML says the
       * value is the entity's text, which the model holds */
      size_t hn = strlen(href);
      if (hn > 2 && href[0] == '&' && href[hn - 1] == ';') {
        char ent[256];
        snprintf(ent, sizeof ent, "%.*s", (int)(hn - 2), href + 1);
        xmlEntityPtr e = xmlGetDocEntity(xd, (const xmlChar *)ent);
        if (e && e->content) href = (const char *)e->content;
      }
      if (!s_val_is(o, name, href)) {
        snprintf(s_why, sizeof s_why, "%s: namespace %s differs", kind, name);
        return 0;
      }
    }
    for (xmlAttrPtr a = x->properties; a; a = a->next, count++) {
      snprintf(name, sizeof name, "%s%s%s", a->ns && a->ns->prefix ? (const char *)a->ns->prefix : "",
               a->ns && a->ns->prefix ? ":" : "", (const char *)a->name);
      xmlChar *v = xmlNodeListGetString(xd, a->children, 1);
      int ok = s_val_is(o, name, v ? (const char *)v : "");
      if (!ok) {
        ens_value mv;
        ens_obj_get(o, name, &mv);
        snprintf(s_why, sizeof s_why, "%s@%s: libxml2 \"%.80s\", model \"%.*s\"", kind, name, v ? (char *)v : "",
                 mv.type == ENS_STR ? (int)(mv.u.s.len > 80 ? 80 : mv.u.s.len) : 0, mv.type == ENS_STR ? mv.u.s.ptr : "");
      }
      xmlFree(v);
      if (!ok) return 0;
    }
    if (count != s_attr_count(o)) {
      snprintf(s_why, sizeof s_why, "%s: %d attributes in libxml2, %d in the model", kind, count, s_attr_count(o));
      return 0;
    }
    return s_kids(xd, x->children, o);
  }
  case XML_TEXT_NODE:
  case XML_CDATA_SECTION_NODE:
  case XML_COMMENT_NODE: {
    const char *want = x->type == XML_TEXT_NODE ? ENS_SVG_TEXT : x->type == XML_COMMENT_NODE ? ENS_SVG_COMMENT : ENS_SVG_CDATA;
    if (strcmp(kind, want) != 0 || !s_val_is(o, "text", x->content ? (const char *)x->content : "")) {
      snprintf(s_why, sizeof s_why, "%s \"%.60s\" is %s in the model", want, x->content ? (char *)x->content : "", kind);
      return 0;
    }
    return 1;
  }
  case XML_PI_NODE:
    if (strcmp(kind, ENS_SVG_PI) != 0 || !s_val_is(o, "target", (const char *)x->name) ||
        !s_val_is(o, "data", x->content ? (const char *)x->content : "")) {
      snprintf(s_why, sizeof s_why, "PI %s differs", (const char *)x->name);
      return 0;
    }
    return 1;
  case XML_ENTITY_REF_NODE:
    if (strcmp(kind, ENS_SVG_ENTITY) != 0 || !s_val_is(o, "name", (const char *)x->name)) {
      snprintf(s_why, sizeof s_why, "entity reference %s differs", (const char *)x->name);
      return 0;
    }
    return 1;
  default:
    snprintf(s_why, sizeof s_why, "libxml2 node type %d", (int)x->type);
    return 0;
  }
}

/* The model's document children that libxml2 also keeps (not the XML
 * declaration nor whitespace outside the root element). */
static int s_doc_same(xmlDocPtr xd, const ens_doc *doc) {
  const ens_obj *root = ens_doc_root(doc);
  size_t i = 0, n = ens_obj_child_count(root);
  for (xmlNodePtr c = xd->children; c; c = c->next) {
    while (i < n) {
      const char *k = ens_obj_kind(ens_obj_child(root, i));
      if (strcmp(k, ENS_SVG_XMLDECL) != 0 && strcmp(k, ENS_SVG_TEXT) != 0) break;
      i++;
    }
    if (c->type == XML_DTD_NODE) {
      if (i < n && strcmp(ens_obj_kind(ens_obj_child(root, i)), ENS_SVG_DOCTYPE) == 0) i++;
      continue;
    }
    if (i >= n) {
      snprintf(s_why, sizeof s_why, "libxml2 has more top-level nodes");
      return 0;
    }
    if (!s_same(xd, c, ens_obj_child(root, i++))) return 0;
  }
  return 1;
}

/* Every .svg below dir read by both; *files counts those libxml2 reads
 * and Ensemble does not refuse. */
static void s_compare_all(const char *dir, int *files, int *agree) {
  size_t n;
  char **paths = tu_list_files(dir, ".svg", &n);
  for (size_t i = 0; i < n; i++) {
    ens_doc *doc = NULL;
    if (ens_svg_read_path(paths[i], &doc) != 0) continue; /* refused: the round trip test reports those */
    xmlDocPtr xd = xmlReadFile(paths[i], NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (xd) {
      (*files)++;
      s_why[0] = '\0';
      if (s_doc_same(xd, doc)) (*agree)++;
      else printf("    %s: %s\n", paths[i], s_why);
      xmlFreeDoc(xd);
    }
    ens_doc_free(doc);
  }
  tu_files_free(paths, n);
}

static void test_bundled_agree_with_libxml2(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/drawings", tu_resources_dir());
  int files = 0, agree = 0;
  s_compare_all(dir, &files, &agree);
  printf("bundled drawings: %d of %d files read alike by Ensemble and libxml2\n", agree, files);
  assert_true(files >= 30); /* a missing bundle is a failure, not an empty pass */
  assert_int_equal(agree, files);
}

static void test_corpus_agrees_with_libxml2(void **state) {
  (void)state;
  const char *corpus = tu_corpus_dir();
  if (!corpus) TU_SKIP("no shared corpus (../shared/corpus or $ENSEMBLE_CORPUS): libxml2 comparison over it");
  int total = 0, total_ok = 0;
  for (size_t i = 0; i < sizeof s_dirs / sizeof s_dirs[0]; i++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/svg/%s", corpus, s_dirs[i]);
    int files = 0, agree = 0;
    s_compare_all(dir, &files, &agree);
    printf("svg/%s: %d of %d files read alike by Ensemble and libxml2\n", s_dirs[i], agree, files);
    total += files;
    total_ok += agree;
  }
  if (!total) TU_SKIP("the corpus at %s has no SVG set", corpus);
  assert_int_equal(total_ok, total);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bundled_agree_with_libxml2),
      cmocka_unit_test(test_corpus_agrees_with_libxml2),
  };
  return tu_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof tests / sizeof tests[0]);
}
