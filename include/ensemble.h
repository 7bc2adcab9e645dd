/* Ensemble: real-time collaboration and version control for design files.
 * The umbrella header; each module also has its own in ensemble/. */
#ifndef ENSEMBLE_H
#define ENSEMBLE_H

#include "ensemble/common.h"
#include "ensemble/limits.h"
#include "ensemble/file.h"
#include "ensemble/model.h"
#include "ensemble/txn.h"
#include "ensemble/undo.h"
#include "ensemble/diff.h"
#include "ensemble/merge.h"
#include "ensemble/sfd.h"
#include "ensemble/glyph.h"
#include "ensemble/svg.h"
#include "ensemble/svgedit.h"
#include "ensemble/lottie.h"
#include "ensemble/lottieedit.h"
#include "ensemble/format.h"
#include "ensemble/render.h"
#include "ensemble/session.h"
#include "ensemble/invite.h"
#include "ensemble/mirror.h"
#include "ensemble/changes.h"
#include "ensemble/repo.h"
#include "ensemble/visdiff.h"
#include "ensemble/history.h"
#include "ensemble/tupi.h"

#endif
