#ifndef VITRINE_CRSVG_SHIM_H
#define VITRINE_CRSVG_SHIM_H

/* librsvg (with cairo), for VitrineImage's SVG rasterizer. */

#include <cairo.h>
#include <librsvg/rsvg.h>

#endif
