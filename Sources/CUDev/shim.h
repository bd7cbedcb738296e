#ifndef VITRINE_CUDEV_SHIM_H
#define VITRINE_CUDEV_SHIM_H

/* libudev: device events (a udev monitor on the daemon's event loop: DRM hotplug). */

#include <libudev.h>

#endif
