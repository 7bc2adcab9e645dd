/* Visual diff: the review page. One HTML file with everything inline: the
 * composite SVG (overlay), OLD and NEW as data: images (side by side, and
 * a slider that uncovers one over the other), toggles for the classes and
 * the list of changes, a click on one framing its object in the overlay. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "ensemble/svg.h"
#include "visdiff_int.h"

void ens__vd_base64(ens_buf *b, const unsigned char *p, size_t n) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (!ens__buf_room(b, (n + 2) / 3 * 4 + 1)) return;
  size_t i = 0;
  char q[4];
  for (; i + 2 < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    q[0] = t[v >> 18], q[1] = t[(v >> 12) & 63], q[2] = t[(v >> 6) & 63], q[3] = t[v & 63];
    ens__buf_append(b, q, 4);
  }
  if (i < n) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
    q[0] = t[v >> 18], q[1] = t[(v >> 12) & 63], q[2] = i + 1 < n ? t[(v >> 6) & 63] : '=', q[3] = '=';
    ens__buf_append(b, q, 4);
  }
}

static const char s_css[] =
    "body{font-family:sans-serif;margin:0;color:#222;background:#f4f4f4}\n"
    "header{padding:8px 14px;background:#fff;border-bottom:1px solid #ccc}\n"
    "h1{font-size:17px;margin:0 0 6px}\n"
    "header .counts span{margin-right:12px}\n"
    ".sw{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:middle}\n"
    "nav button{font-size:13px;margin-right:4px}nav button.on{font-weight:bold}\n"
    "label{font-size:13px;margin-left:10px}\n"
    "main{display:flex;align-items:flex-start}\n"
    ".view{flex:1;padding:12px;overflow:auto}\n"
    ".stage{position:relative;background:#fff;display:inline-block;border:1px solid #ccc}\n"
    ".stage>svg{display:block;width:min(calc(100vw - 380px),1100px);height:auto}\n"
    "#view-overlay{min-width:0}\n"
    ".side{display:flex;gap:10px}.side figure{margin:0;flex:1;background:#fff;border:1px solid #ccc}\n"
    ".side img{width:100%;display:block}figcaption{font-size:12px;padding:3px 6px;background:#eee}\n"
    ".cmp{position:relative;display:inline-block;background:#fff;border:1px solid #ccc}\n"
    ".cmp img{display:block;width:min(80vw,1000px)}\n"
    ".cmp .top{position:absolute;top:0;left:0;bottom:0;width:50%;overflow:hidden;border-right:2px solid #c00}\n"
    ".cmp .top img{width:min(80vw,1000px);max-width:none}\n"
    "#slider{width:min(80vw,1000px);display:block}\n"
    "aside{width:320px;max-height:calc(100vh - 90px);overflow:auto;background:#fff;border-left:1px solid #ccc}\n"
    "aside ol{margin:0;padding:6px 6px 6px 34px;font-size:13px}\n"
    "aside li{cursor:pointer;padding:2px 0}aside li:hover{background:#eef}\n"
    "aside li.sel{background:#ffe08a}\n"
    "aside small{color:#666;display:block}\n"
    "li.added{color:" VD_COLOR_ADDED "}li.removed{color:" VD_COLOR_REMOVED "}li.changed{color:" VD_COLOR_CHANGED "}\n"
    "#hlbox{position:absolute;border:3px solid #ff00ff;pointer-events:none;display:none;box-sizing:border-box}\n"
    ".hide-unchanged .ens-unchanged{opacity:1!important}\n"
    ".hide-added .ens-added,.hide-added .ens-in-added{display:none}\n"
    ".hide-removed .ens-removed,.hide-removed .ens-in-removed{display:none}\n"
    ".hide-changed .ens-changed,.hide-changed .ens-in-changed{display:none}\n"
    ".hide-ghost .ens-ghost,.hide-ghost .ens-in-ghost{display:none}\n";

static const char s_js[] =
    "(function(){\n"
    "var views=['overlay','side','slider'];\n"
    "function show(v){views.forEach(function(n){document.getElementById('view-'+n).hidden=(n!==v);"
    "document.getElementById('b-'+n).className=(n===v?'on':'');});hl(null);}\n"
    "views.forEach(function(n){document.getElementById('b-'+n).onclick=function(){show(n);};});\n"
    "var stage=document.getElementById('ov');\n"
    "['unchanged','added','removed','changed','ghost'].forEach(function(c){var i=document.getElementById('t-'+c);"
    "i.onchange=function(){stage.classList.toggle('hide-'+c,!i.checked);};});\n"
    "var box=document.getElementById('hlbox');\n"
    "function hl(li){var s=document.querySelectorAll('aside li.sel');for(var k=0;k<s.length;k++)s[k].className="
    "s[k].className.replace(' sel','');box.style.display='none';if(!li)return;li.className+=' sel';\n"
    "show1();var n=li.getAttribute('data-ens');var el=stage.querySelector('[data-ens=\"'+n+'\"]');if(!el)return;\n"
    "var r=el.getBoundingClientRect();var sr=stage.getBoundingClientRect();\n"
    "box.style.left=(r.left-sr.left-4)+'px';box.style.top=(r.top-sr.top-4)+'px';"
    "box.style.width=(r.width+8)+'px';box.style.height=(r.height+8)+'px';box.style.display='block';\n"
    "el.scrollIntoView({block:'nearest',inline:'nearest'});}\n"
    "function show1(){if(document.getElementById('view-overlay').hidden){views.forEach(function(n){"
    "document.getElementById('view-'+n).hidden=(n!=='overlay');document.getElementById('b-'+n).className="
    "(n==='overlay'?'on':'');});}}\n"
    "var lis=document.querySelectorAll('aside li');for(var k=0;k<lis.length;k++){lis[k].onclick=function(){hl(this);};}\n"
    "var sl=document.getElementById('slider'),top=document.getElementById('top');\n"
    "sl.oninput=function(){top.style.width=sl.value+'%';};\n"
    "var m=/^#(?:view=(overlay|side|slider))?(?:&?ens=(\\d+))?$/.exec(location.hash);\n"
    "if(m&&m[1])show(m[1]);\n"
    "if(m&&m[2]){var li=document.querySelector('aside li[data-ens=\"'+m[2]+'\"]');if(li)hl(li);}\n"
    "})();\n";

static int s_views(const ens_visdiff *vd, unsigned char **old_svg, size_t *old_len, unsigned char **new_svg,
                   size_t *new_len) {
  *old_svg = *new_svg = NULL;
  if (!vd->font) {
    int rc = ens_svg_write(vd->old_doc, old_svg, old_len);
    if (!rc) rc = ens_svg_write(vd->new_doc, new_svg, new_len);
    return rc;
  }
  ens_buf a = ENS_BUF_INIT, b = ENS_BUF_INIT;
  ens_visdiff *w = (ens_visdiff *)vd;
  int rc = ens__vd_font_write(w, &a, 1);
  if (!rc) rc = ens__vd_font_write(w, &b, 2);
  if (!rc && (a.oom || b.oom)) rc = ens__error(ENS_ENOMEM, "out of memory");
  if (rc) {
    ens__buf_free(&a);
    ens__buf_free(&b);
    return rc;
  }
  *old_svg = ens__buf_detach(&a, old_len);
  *new_svg = ens__buf_detach(&b, new_len);
  return 0;
}

int ens_visdiff_html(const ens_visdiff *vd, const char *title, char **html, size_t *len) {
  if (!vd || !html) return ens__error(ENS_EINVAL, "visual diff: no output");
  *html = NULL;
  if (vd->anim) {
    ens_visdiff_strip strip;
    ens_render_size size = {0, 0, 0};
    int rc = ens_visdiff_strip_render(vd, size, &strip);
    if (!rc) rc = ens_visdiff_strip_html(vd, &strip, title, html, len);
    ens_visdiff_strip_free(&strip);
    return rc;
  }
  char *svg = NULL;
  size_t svg_len = 0, old_len = 0, new_len = 0;
  unsigned char *old_svg = NULL, *new_svg = NULL;
  int rc = ens_visdiff_svg(vd, &svg, &svg_len);
  if (!rc) rc = s_views(vd, &old_svg, &old_len, &new_svg, &new_len);
  if (rc) goto done;
  ens_buf b = ENS_BUF_INIT;
  if (!title) title = vd->font ? "Font changes" : "Drawing changes";
  size_t counts[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < vd->nitems; i++) counts[vd->items[i].mark]++;
  ens__buf_puts(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
  ens__vd_escape(&b, title, strlen(title), 0);
  ens__buf_puts(&b, "</title>\n<style>\n");
  ens__buf_puts(&b, s_css);
  /* in the browser the marks' strokes keep one width on screen whatever
   * the drawing's scale (librsvg, for the PNG, has no vector-effect) */
  if (!vd->font) {
    static const char *const leaves[] = {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon",
                                         "text", "image", "use"};
    static const char *const classes[] = {"ens-added", "ens-in-added", "ens-changed", "ens-in-changed",
                                          "ens-removed", "ens-in-removed", "ens-ghost", "ens-in-ghost"};
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
      for (size_t l = 0; l < sizeof leaves / sizeof leaves[0]; l++)
        ens__buf_printf(&b, "%s#ov %s.%s:not(.ens-def)", c || l ? "," : "", leaves[l], classes[c]);
    ens__buf_puts(&b, "{vector-effect:non-scaling-stroke;stroke-width:2.5px!important}\n");
  }
  ens__buf_puts(&b, "</style></head>\n<body>\n<header><h1>");
  ens__vd_escape(&b, title, strlen(title), 0);
  ens__buf_printf(&b,
                  "</h1><div class=\"counts\"><span><i class=\"sw\" style=\"background:" VD_COLOR_ADDED
                  "\"></i>%zu added</span><span><i class=\"sw\" style=\"background:" VD_COLOR_REMOVED
                  "\"></i>%zu removed</span><span><i class=\"sw\" style=\"background:" VD_COLOR_CHANGED
                  "\"></i>%zu changed</span><span><i class=\"sw\" style=\"border:1px dashed " VD_COLOR_GHOST
                  "\"></i>old geometry</span></div>\n",
                  counts[ENS_VIS_ADDED], counts[ENS_VIS_REMOVED], counts[ENS_VIS_CHANGED]);
  ens__buf_puts(&b,
                "<nav><button id=\"b-overlay\" class=\"on\">Overlay</button><button id=\"b-side\">Side by "
                "side</button><button id=\"b-slider\">Slider</button>"
                "<label><input type=\"checkbox\" id=\"t-unchanged\" checked> dim unchanged</label>"
                "<label><input type=\"checkbox\" id=\"t-added\" checked> added</label>"
                "<label><input type=\"checkbox\" id=\"t-removed\" checked> removed</label>"
                "<label><input type=\"checkbox\" id=\"t-changed\" checked> changed</label>"
                "<label><input type=\"checkbox\" id=\"t-ghost\" checked> old geometry</label></nav>\n"
                "</header>\n<main>\n<section class=\"view\" id=\"view-overlay\"><div class=\"stage\" id=\"ov\">");
  /* the composite inline, without its XML declaration */
  const char *s = svg;
  if (strncmp(s, "<?xml", 5) == 0) {
    const char *e = strstr(s, "?>");
    if (e) s = e + 2;
  }
  ens__buf_append(&b, s, svg_len - (size_t)(s - svg));
  ens__buf_puts(&b, "<div id=\"hlbox\"></div></div></section>\n");
  ens__buf_puts(&b, "<section class=\"view\" id=\"view-side\" hidden><div class=\"side\"><figure><figcaption>old</figcaption>"
                    "<img alt=\"old\" src=\"data:image/svg+xml;base64,");
  ens__vd_base64(&b, old_svg, old_len);
  ens__buf_puts(&b, "\"></figure><figure><figcaption>new</figcaption><img alt=\"new\" src=\"data:image/svg+xml;base64,");
  ens__vd_base64(&b, new_svg, new_len);
  ens__buf_puts(&b, "\"></figure></div></section>\n");
  ens__buf_puts(&b, "<section class=\"view\" id=\"view-slider\" hidden><input type=\"range\" id=\"slider\" min=\"0\" "
                    "max=\"100\" value=\"50\"><div class=\"cmp\"><img alt=\"new\" src=\"data:image/svg+xml;base64,");
  ens__vd_base64(&b, new_svg, new_len);
  ens__buf_puts(&b, "\"><div class=\"top\" id=\"top\"><img alt=\"old\" src=\"data:image/svg+xml;base64,");
  ens__vd_base64(&b, old_svg, old_len);
  ens__buf_puts(&b, "\"></div></div><div style=\"font-size:12px\">left of the line: old; right: new</div></section>\n");
  ens__buf_puts(&b, "<aside><ol id=\"changes\">\n");
  static const char *const names[] = {"", "added", "removed", "changed"};
  for (size_t i = 0; i < vd->nitems; i++) {
    const vd_item *it = &vd->items[i];
    ens__buf_printf(&b, "<li class=\"%s\" data-ens=\"%zu\">%s: ", names[it->mark], i, names[it->mark]);
    ens__vd_escape(&b, it->label, strlen(it->label), 0);
    if (it->detail[0]) {
      ens__buf_puts(&b, "<small>");
      ens__vd_escape(&b, it->detail, strlen(it->detail), 0);
      ens__buf_puts(&b, "</small>");
    }
    ens__buf_puts(&b, "</li>\n");
  }
  ens__buf_puts(&b, "</ol></aside>\n</main>\n<script>\n");
  ens__buf_puts(&b, s_js);
  ens__buf_puts(&b, "</script>\n</body></html>\n");
  if (b.oom) {
    ens__buf_free(&b);
    rc = ens__error(ENS_ENOMEM, "out of memory writing the page");
    goto done;
  }
  *html = (char *)ens__buf_detach(&b, len);
  if (!*html) rc = ens__error(ENS_ENOMEM, "out of memory writing the page");
done:
  ens_free(svg);
  ens_free(old_svg);
  ens_free(new_svg);
  return rc;
}
