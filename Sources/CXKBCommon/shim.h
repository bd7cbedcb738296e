#ifndef VITRINE_CXKBCOMMON_SHIM_H
#define VITRINE_CXKBCOMMON_SHIM_H

/* xkbcommon, for VitrineInput's keyboards. */

#include <xkbcommon/xkbcommon.h>

#endif
