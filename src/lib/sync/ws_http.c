/* The plain HTTP side of the WebSocket endpoint, in the lws thread:
 * GET /status (with invites, for a valid token only) and the web client's
 * files under the web root (ws_files.c decides which); without invites
 * only for a Host that names this machine. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ws_int.h"

int ens__ws_host_local(const char *host) {
  char h[256];
  snprintf(h, sizeof h, "%s", host);
  char *end = h[0] == '[' ? strchr(h, ']') : strrchr(h, ':');
  if (h[0] == '[') {
    if (!end) return 0;
    *end = '\0';
    return strcmp(h + 1, "::1") == 0;
  }
  if (end) *end = '\0';
  if (strcmp(h, "localhost") == 0) return 1;
  struct in_addr a;
  return inet_pton(AF_INET, h, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

static int s_http_reply(struct lws *wsi, unsigned status, const char *type, const char *body) {
  size_t blen = strlen(body);
  unsigned char head[LWS_PRE + 512], *start = head + LWS_PRE, *p = start, *end = head + sizeof head - 1;
  if (lws_add_http_common_headers(wsi, status, type, blen, &p, end) ||
      lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:", (const unsigned char *)"no-store", 8,
                                  &p, end) ||
      lws_finalize_write_http_header(wsi, start, &p, end))
    return -1;
  unsigned char *b = malloc(LWS_PRE + blen + 1);
  if (!b) return -1;
  memcpy(b + LWS_PRE, body, blen);
  int w = lws_write(wsi, b + LWS_PRE, blen, LWS_WRITE_HTTP_FINAL);
  free(b);
  if (w < 0) return -1;
  return lws_http_transaction_completed(wsi) ? -1 : 0;
}

int ens__ws_http_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
  ens__ws *ws = lws_context_user(lws_get_context(wsi));
  if (reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED) return 0;
  if (reason == LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION) return -1; /* a WebSocket without "ensemble" */
  if (reason == LWS_CALLBACK_HTTP_FILE_COMPLETION) return lws_http_transaction_completed(wsi) ? -1 : 0;
  if (reason != LWS_CALLBACK_HTTP) return lws_callback_http_dummy(wsi, reason, user, in, len);
  if (!ws) return -1;
  const char *url = in;
  char host[256];
  if (ws->local_only && (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0 || !ens__ws_host_local(host)))
    return s_http_reply(wsi, HTTP_STATUS_FORBIDDEN, "text/plain", "this server answers only to this machine\n");
  if (strcmp(url, "/status") == 0) {
    if (ens__ws_invites_required(ws)) { /* with invites the session's shape is for the invited only */
      char buf[ENS_TOKEN_LEN + 16];
      const char *tok = lws_get_urlarg_by_name(wsi, "token=", buf, sizeof buf);
      unsigned char h[ENS__HASH_LEN];
      if (tok) ens__invites_hash(tok, strlen(tok), h);
      if (!tok || !ens__invites_find(ws->inv, h))
        return s_http_reply(wsi, HTTP_STATUS_FORBIDDEN, "text/plain", "not authorised\n");
    }
    char body[256];
    pthread_mutex_lock(&ws->mu);
    snprintf(body, sizeof body, "%s", ws->status);
    pthread_mutex_unlock(&ws->mu);
    return s_http_reply(wsi, HTTP_STATUS_OK, "application/json", body);
  }
  char path[4096];
  const char *type = NULL;
  struct stat st;
  if (ws->web_root && ens__ws_file_path(ws->web_root, url, path, sizeof path) == 0 &&
      (type = ens__ws_content_type(path)) && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
    int n = lws_serve_http_file(wsi, path, type, NULL, 0);
    if (n < 0 || (n > 0 && lws_http_transaction_completed(wsi))) return -1;
    return 0;
  }
  return s_http_reply(wsi, HTTP_STATUS_NOT_FOUND, "text/plain", "not found\n");
}

