#ifndef VITRINE_CX11_SHIM_H
#define VITRINE_CX11_SHIM_H

/* xcb with MIT-SHM, and xkbcommon-x11 for the server's keymap: VitrineOutput's X11 window. */

#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-x11.h>

/* The MIT-SHM extension's id, a C global that Swift 6 would not read from a nonisolated context. */
static inline xcb_extension_t *vitrine_xcb_shm_id(void) { return &xcb_shm_id; }

#endif
