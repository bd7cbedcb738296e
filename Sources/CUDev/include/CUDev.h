#ifndef VITRINE_CUDEV_SHIM_H
#define VITRINE_CUDEV_SHIM_H

/* libudev: device events (a udev monitor on the daemon's event loop: DRM hotplug), and
   libinput's udev context. Not linked: bound when first used (CLazyLibrary). */

#include <libudev.h>

/* Opens libudev: NULL, or why it cannot be ("libudev.so.1 (Debian: libudev1): ..."). */
const char *vitrine_udev_load(void);

#endif
