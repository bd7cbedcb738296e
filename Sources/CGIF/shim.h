#ifndef VITRINE_CGIF_SHIM_H
#define VITRINE_CGIF_SHIM_H

/* giflib, for VitrineImage's GIF decoder and the tests' encoder. (Debian 12's giflib has
   no pkg-config file everywhere: the header is in the default include path.) */

#include <gif_lib.h>

#endif
