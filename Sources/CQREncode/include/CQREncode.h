#ifndef VITRINE_CQRENCODE_SHIM_H
#define VITRINE_CQRENCODE_SHIM_H

/* libqrencode: the QR code of the identification screen (libqrencode-dev's header). Not
   linked: bound when the screen is first drawn (CLazyLibrary), so that a daemon that never
   shows it never loads it. */

#include <qrencode.h>

/* Opens libqrencode: NULL, or why it cannot be ("libqrencode.so.4 (Debian: libqrencode4): ..."). */
const char *vitrine_qrencode_load(void);

#endif
