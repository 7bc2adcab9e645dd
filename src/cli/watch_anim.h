/* `ensemble watch` on an animation session: which layers and keyframes a
 * transaction changed (watch_anim.c). */
#ifndef ENS_CLI_WATCH_ANIM_H
#define ENS_CLI_WATCH_ANIM_H

#include <stdio.h>

#include "cli.h"

/* One line per layer txn touched in doc (the document it was applied to):
 * "  layer IND "NAME": keyframe p t=30, 2 other changes" (with " in
 * precomposition "ID"" for a precomposition's layer); "  the
 * animation: ..." for what lies outside every layer, and a count of
 * objects deleted. Nothing for a document that is not an animation. */
void cli_watch_anim_text(FILE *f, const ens_doc *doc, const ens_txn *txn);
/* The same as members to append to a JSON object: ", "layers": [{"ind",
 * "name", "precomposition", "keyframes": [...], "more_keyframes", "other"}, ...],
 * "outside_layers": N, "deleted": N". */
void cli_watch_anim_json(FILE *f, const ens_doc *doc, const ens_txn *txn);

#endif
