#ifndef VITRINE_CLIBSEAT_SHIM_H
#define VITRINE_CLIBSEAT_SHIM_H

/* libseat: input devices opened through a seat manager (seatd or logind). Its own log
   stays silent (its default); VitrineInput says what failed from the calls' errno. Not
   linked: bound when first used (CLazyLibrary). */

#include <libseat.h>

/* Opens libseat: NULL, or why it cannot be ("libseat.so.1 (Debian: libseat1): ..."). */
const char *vitrine_libseat_load(void);

#endif
