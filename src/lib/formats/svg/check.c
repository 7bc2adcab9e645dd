/* The libxml2 pass: libxml2 decides whether the bytes are well-formed XML
 * (encodings, names, nesting, entities and their amplification limits),
 * with no network, no DTD loading and no entity substitution, and builds
 * no tree: only the internal subset's entity table, which is copied out.
 * A document that declares an external entity is refused here, so nothing
 * that follows can ever be asked to fetch one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/SAX2.h>
#include <libxml/entities.h>
#include <libxml/hash.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "../../util/error.h"
#include "svg_int.h"

typedef struct {
  int fatal_line, error_line;
  char fatal[256], error[256];
  int refused_line;
  char refused[200];
} s_state;

static void s_copy_msg(char *dst, size_t size, const char *msg) {
  snprintf(dst, size, "%s", msg ? msg : "malformed XML");
  size_t n = strlen(dst);
  while (n && (dst[n - 1] == '\n' || dst[n - 1] == ' ')) dst[--n] = '\0';
}

static void s_serror(void *user, xmlErrorPtr e) {
  xmlParserCtxtPtr ctxt = user;
  s_state *st = ctxt ? ctxt->_private : NULL;
  if (!st || !e) return;
  if (e->level == XML_ERR_FATAL && !st->fatal_line) {
    st->fatal_line = e->line > 0 ? e->line : 1;
    s_copy_msg(st->fatal, sizeof st->fatal, e->message);
  } else if (e->level == XML_ERR_ERROR && !st->error_line) {
    st->error_line = e->line > 0 ? e->line : 1;
    s_copy_msg(st->error, sizeof st->error, e->message);
  }
}

/* libxml2 reports some errors (encoding conversion) through its per-thread
 * generic handler, which prints to stderr: a library must not, and the
 * structured handler above already has what the message needs. */
static void s_quiet(void *ctx, const char *msg, ...) { (void)ctx, (void)msg; }

static void s_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri, int nns,
                    const xmlChar **ns, int nattrs, int ndefaulted, const xmlChar **attrs) {
  (void)ctx, (void)localname, (void)prefix, (void)uri, (void)nns, (void)ns, (void)nattrs, (void)ndefaulted,
      (void)attrs;
}

static void s_refuse(xmlParserCtxtPtr ctxt, const char *what, const xmlChar *name) {
  s_state *st = ctxt->_private;
  if (st->refused_line) return;
  st->refused_line = ctxt->input ? ctxt->input->line : 1;
  snprintf(st->refused, sizeof st->refused, "%s %.100s: refused (no external entity is ever loaded)", what,
           name ? (const char *)name : "");
  xmlStopParser(ctxt);
}

static void s_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                          const xmlChar *system_id, xmlChar *content) {
  xmlParserCtxtPtr ctxt = ctx;
  if (type != XML_INTERNAL_GENERAL_ENTITY && type != XML_INTERNAL_PARAMETER_ENTITY &&
      type != XML_INTERNAL_PREDEFINED_ENTITY) {
    s_refuse(ctxt, "the DOCTYPE declares an external entity", name);
    return;
  }
  xmlSAX2EntityDecl(ctx, name, type, public_id, system_id, content);
}

static xmlParserInputPtr s_resolve(void *ctx, const xmlChar *public_id, const xmlChar *system_id) {
  (void)public_id;
  s_refuse(ctx, "loading", system_id);
  return NULL;
}

static void s_collect(void *payload, void *data, const xmlChar *name) {
  xmlEntityPtr e = payload;
  ens__svg_ents *t = data;
  if (!e || e->etype != XML_INTERNAL_GENERAL_ENTITY || t->cap == (size_t)-1) return;
  if (t->n == t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 8;
    ens__svg_ent *nv = realloc(t->v, nc * sizeof *nv);
    if (!nv) {
      t->cap = (size_t)-1; /* remembered as out of memory */
      return;
    }
    t->v = nv;
    t->cap = nc;
  }
  size_t nn = strlen((const char *)name), cn = e->content ? strlen((const char *)e->content) : 0;
  char *nm = malloc(nn + 1), *ct = malloc(cn + 1);
  if (!nm || !ct) {
    free(nm);
    free(ct);
    t->cap = (size_t)-1;
    return;
  }
  memcpy(nm, name, nn + 1);
  if (cn) memcpy(ct, e->content, cn);
  ct[cn] = '\0';
  t->v[t->n++] = (ens__svg_ent){nm, nn, ct, cn};
}

void ens__svg_ents_free(ens__svg_ents *t) {
  if (!t) return;
  for (size_t i = 0; i < t->n; i++) {
    free((void *)t->v[i].name);
    free((void *)t->v[i].text);
  }
  free(t->v);
  memset(t, 0, sizeof *t);
}

int ens__svg_check(const void *data, size_t len, ens__svg_ents *ents) {
  memset(ents, 0, sizeof *ents);
  ents->budget = ENS_SVG_MAX_EXPANSION;
  if (len > ENS_SVG_MAX_FILE || len > (size_t)INT32_MAX)
    return ens__error(ENS_ELIMIT, "the file is larger than %zu bytes", ENS_SVG_MAX_FILE);
  if (len == 0) return ens__error(ENS_EDECODE, "line 1: the file is empty");
  xmlInitParser();
  xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(data, (int)len);
  if (!ctxt) return ens__error(ENS_ENOMEM, "out of memory starting libxml2");
  s_state st;
  memset(&st, 0, sizeof st);
  ctxt->_private = &st;
  /* no network, no DTD, no substitution, default limits (no XML_PARSE_HUGE);
   * options first, since they reset some handlers */
  xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOWARNING);
  xmlSAXHandlerPtr sax = ctxt->sax;
  sax->initialized = XML_SAX2_MAGIC;
  sax->serror = s_serror;
  sax->error = NULL;
  sax->warning = NULL;
  sax->fatalError = NULL;
  /* no tree: namespaces are still checked, since startElementNs is set */
  sax->startElementNs = s_start;
  sax->endElementNs = NULL;
  sax->startElement = NULL;
  sax->endElement = NULL;
  sax->characters = NULL;
  sax->ignorableWhitespace = NULL;
  sax->cdataBlock = NULL;
  sax->comment = NULL;
  sax->processingInstruction = NULL;
  sax->reference = NULL;
  sax->entityDecl = s_entity_decl;
  sax->resolveEntity = s_resolve;
  sax->externalSubset = NULL;
  ctxt->replaceEntities = 0;
  ctxt->loadsubset = 0;
  ctxt->validate = 0;
  ctxt->sax2 = 1;

  xmlGenericErrorFunc saved = xmlGenericError;
  void *saved_ctx = xmlGenericErrorContext;
  xmlSetGenericErrorFunc(NULL, s_quiet);
  xmlParseDocument(ctxt);
  xmlSetGenericErrorFunc(saved_ctx, saved);
  int rc = 0;
  if (st.refused_line) {
    rc = ens__error(ENS_EDECODE, "line %d: %s", st.refused_line, st.refused);
  } else if (!ctxt->wellFormed || st.fatal_line) {
    if (st.fatal_line) rc = ens__error(ENS_EDECODE, "line %d: %s", st.fatal_line, st.fatal);
    else if (st.error_line) rc = ens__error(ENS_EDECODE, "line %d: %s", st.error_line, st.error);
    else rc = ens__error(ENS_EDECODE, "line 1: libxml2 found the XML malformed");
  } else if (ctxt->myDoc && ctxt->myDoc->intSubset && ctxt->myDoc->intSubset->entities) {
    xmlHashScan((xmlHashTablePtr)ctxt->myDoc->intSubset->entities, s_collect, ents);
    if (ents->cap == (size_t)-1) {
      ents->cap = ents->n;
      rc = ens__error(ENS_ENOMEM, "out of memory reading entities");
    }
  }
  if (ctxt->myDoc) xmlFreeDoc(ctxt->myDoc);
  ctxt->myDoc = NULL;
  xmlFreeParserCtxt(ctxt);
  if (rc) ens__svg_ents_free(ents);
  if (!rc) ents->budget = ENS_SVG_MAX_EXPANSION;
  return rc;
}
