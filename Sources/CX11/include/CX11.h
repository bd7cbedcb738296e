#ifndef VITRINE_CX11_SHIM_H
#define VITRINE_CX11_SHIM_H

/* xcb with MIT-SHM, and xkbcommon-x11 for the server's keymap: VitrineOutput's X11 window.
   Not linked: bound when first used (CLazyLibrary); xkbcommon's functions are CXKBCommon's. */

#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-x11.h>

/* The MIT-SHM extension's id: a C global of libxcb-shm, found there (a lazily bound
   library's variable has no address at link time). */
xcb_extension_t *vitrine_xcb_shm_id(void);

/* Opens libxcb, libxcb-shm, libxkbcommon-x11 and libxkbcommon: NULL, or why one cannot be
   ("libxcb-shm.so.0 (Debian: libxcb-shm0): ..."). */
const char *vitrine_x11_load(void);

#endif
