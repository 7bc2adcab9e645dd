/* Fractional positions: strings of base-62 digits read as a fraction in
 * [0, 1), compared bytewise, never ending in the zero digit, so there is
 * always a string between any two and before any one. Siblings sort by
 * position then id. */
#ifndef ENS_MODEL_FRACINDEX_H
#define ENS_MODEL_FRACINDEX_H

#include "ensemble/model.h"

#endif
