/* Ensemble's limits on documents and transactions, in one place: the
 * transaction builders refuse what exceeds them (ENS_ELIMIT), apply
 * refuses it, and the decoders of transactions and snapshots refuse it,
 * so that a change a client can make is a change the server accepts. */
#ifndef ENSEMBLE_LIMITS_H
#define ENSEMBLE_LIMITS_H

/* Bytes of a property key ("width", "xlink:href"). */
#define ENS_MAX_KEY 1024
/* Bytes of an object kind ("glyph", "inkscape:namedview"), and of a
 * document's kind. */
#define ENS_MAX_KIND 255
/* Bytes of a transaction's label ("Move point"). */
#define ENS_MAX_LABEL 4096
/* Bytes of a transaction's author. */
#define ENS_MAX_AUTHOR 4096
/* Bytes of a position among siblings (docs/architecture.md, "Positions"). */
#define ENS_MAX_POS 4096
/* Levels of nesting below the root: every recursive walk of the library
 * (subtree capture, insert, JSON) stays within it. */
#define ENS_MAX_DEPTH 1000

#endif
