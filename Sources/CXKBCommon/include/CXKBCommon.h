#ifndef VITRINE_CXKBCOMMON_SHIM_H
#define VITRINE_CXKBCOMMON_SHIM_H

/* xkbcommon, for VitrineInput's keyboards (and CX11's keymap). Not linked: bound when
   first used (CLazyLibrary). */

#include <xkbcommon/xkbcommon.h>

/* Opens libxkbcommon: NULL, or why it cannot be ("libxkbcommon.so.0 (Debian:
   libxkbcommon0): ..."). */
const char *vitrine_xkbcommon_load(void);

#endif
