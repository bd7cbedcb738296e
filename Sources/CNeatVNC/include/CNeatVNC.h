#ifndef VITRINE_CNEATVNC_H
#define VITRINE_CNEATVNC_H

/* Neat VNC (libneatvnc0) and its main loop aml (libaml0), for VitrineRemote's VNC
   server: not linked, bound when first used (CLazyLibrary); vitrine_vnc_load opens them
   (and libpixman-1, whose regions carry the damage) when a listener starts. The API is
   Neat VNC 0.5's (Debian bookworm's libneatvnc-dev 0.5.4). */

#include <neatvnc.h>
#include <aml.h>
#include <stdint.h>

/* Opens libneatvnc, libaml and libpixman-1 once: NULL, or which cannot be opened. */
const char *vitrine_vnc_load(void);

/* Hands `fb` to `display` with the damage `rects` (x, y, width, height each, `count`
   of them) as a pixman region. */
void vitrine_vnc_feed(struct nvnc_display *display, struct nvnc_fb *fb, const int32_t *rects, int count);

#endif
