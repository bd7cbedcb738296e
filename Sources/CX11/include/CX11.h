#ifndef VITRINE_CX11_SHIM_H
#define VITRINE_CX11_SHIM_H

/* xcb with MIT-SHM, and xkbcommon-x11 for the server's keymap: VitrineOutput's X11 window;
   xcb with Composite and X-Resource: VitrineXWayland's X window manager. Not linked: bound
   when first used (CLazyLibrary); xkbcommon's functions are CXKBCommon's. */

#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xcb/xcbext.h>
#include <xcb/composite.h>
#include <xcb/res.h>
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-x11.h>

/* The MIT-SHM extension's id: a C global of libxcb-shm, found there (a lazily bound
   library's variable has no address at link time). */
xcb_extension_t *vitrine_xcb_shm_id(void);

/* The Composite and X-Resource extensions' ids, libxcb-composite's and libxcb-res's globals. */
xcb_extension_t *vitrine_xcb_composite_id(void);
xcb_extension_t *vitrine_xcb_res_id(void);

/* Opens libxcb, libxcb-shm, libxkbcommon-x11 and libxkbcommon: NULL, or why one cannot be
   ("libxcb-shm.so.0 (Debian: libxcb-shm0): ..."). */
const char *vitrine_x11_load(void);

/* Opens what the X window manager uses, libxcb, libxcb-composite and libxcb-res: NULL, or
   why one cannot be. */
const char *vitrine_x11_wm_load(void);

#endif
