#ifndef VITRINE_CLIBDRM_SHIM_H
#define VITRINE_CLIBDRM_SHIM_H

#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>

/* The ioctl numbers are function-like macros, which Swift cannot import: one inline
   wrapper per dumb-buffer request. Each returns 0 or -1 with errno set (drmIoctl retries
   EINTR and EAGAIN). */

static inline int vitrine_drm_create_dumb(int fd, struct drm_mode_create_dumb *request) {
    return drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, request);
}

static inline int vitrine_drm_map_dumb(int fd, struct drm_mode_map_dumb *request) {
    return drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, request);
}

static inline int vitrine_drm_destroy_dumb(int fd, uint32_t handle) {
    struct drm_mode_destroy_dumb request = { .handle = handle };
    return drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &request);
}

static inline uint32_t vitrine_drm_format_xrgb8888(void) { return DRM_FORMAT_XRGB8888; }

#endif
