#ifndef VITRINE_CLIBSEAT_SHIM_H
#define VITRINE_CLIBSEAT_SHIM_H

/* libseat: input devices opened through a seat manager (seatd or logind). Its own log
   stays silent (its default); VitrineInput says what failed from the calls' errno. */

#include <libseat.h>

#endif
