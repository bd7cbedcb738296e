/* scanout-probe: what the guest's DRM device allows for putting a client's dma-buf on the
 * primary plane (docs/DRM-TEST.md, the dmabuf guest; facts for direct scan-out, printed as
 * VITRINE-INFO, never a failure). Run as DRM master before vitrined starts: a dumb buffer
 * exported with PRIME stands for a client's dma-buf, imported again from its descriptor (as
 * the daemon would import a client's), made a framebuffer with AddFB2 and with
 * AddFB2WithModifiers (linear), shown with SetCrtc and flipped to.
 *
 *   cc -O2 -I/usr/include/libdrm scanout-probe.c -ldrm -o scanout-probe
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>

static void info(const char *what, int rc)
{
    printf("VITRINE-INFO scan-out probe: %s: %s\n", what, rc == 0 ? "yes" : strerror(rc < 0 ? -rc : rc));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
    if (fd < 0) { printf("VITRINE-INFO scan-out probe: no /dev/dri/card0\n"); return 0; }
    uint64_t cap = 0;
    drmGetCap(fd, DRM_CAP_ADDFB2_MODIFIERS, &cap);
    printf("VITRINE-INFO scan-out probe: DRM_CAP_ADDFB2_MODIFIERS %llu\n", (unsigned long long)cap);
    drmGetCap(fd, DRM_CAP_PRIME, &cap);
    printf("VITRINE-INFO scan-out probe: DRM_CAP_PRIME import %s, export %s\n", cap & DRM_PRIME_CAP_IMPORT ? "yes" : "no",
           cap & DRM_PRIME_CAP_EXPORT ? "yes" : "no");
    drmModeRes *res = drmModeGetResources(fd);
    drmModeConnector *conn = NULL;
    for (int i = 0; res && i < res->count_connectors && !conn; i++) {
        conn = drmModeGetConnector(fd, res->connectors[i]);
        if (conn && (conn->connection != DRM_MODE_CONNECTED || !conn->count_modes)) { drmModeFreeConnector(conn); conn = NULL; }
    }
    if (!conn) { printf("VITRINE-INFO scan-out probe: no connected connector\n"); return 0; }
    drmModeModeInfo mode = conn->modes[0];
    uint32_t crtc = res->crtcs[0];
    struct drm_mode_create_dumb create = { .width = mode.hdisplay, .height = mode.vdisplay, .bpp = 32 };
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create)) { info("CREATE_DUMB", errno); return 0; }
    int prime = -1;
    info("PRIME export of a dumb buffer", drmPrimeHandleToFD(fd, create.handle, DRM_CLOEXEC | DRM_RDWR, &prime));
    uint32_t handle = 0;
    info("PRIME import of that dma-buf", drmPrimeFDToHandle(fd, prime, &handle));
    printf("VITRINE-INFO scan-out probe: the import gives %s handle\n", handle == create.handle ? "the exported object's" : "another");
    uint32_t handles[4] = { handle }, pitches[4] = { create.pitch }, offsets[4] = { 0 }, fb = 0, fb2 = 0;
    uint64_t modifiers[4] = { DRM_FORMAT_MOD_LINEAR };
    info("AddFB2 XRGB8888 of the imported buffer", drmModeAddFB2(fd, mode.hdisplay, mode.vdisplay, DRM_FORMAT_XRGB8888, handles, pitches, offsets, &fb, 0));
    info("AddFB2WithModifiers XRGB8888 linear", drmModeAddFB2WithModifiers(fd, mode.hdisplay, mode.vdisplay, DRM_FORMAT_XRGB8888, handles, pitches,
                                                                          offsets, modifiers, &fb2, DRM_MODE_FB_MODIFIERS));
    info("AddFB2 ARGB8888", drmModeAddFB2(fd, mode.hdisplay, mode.vdisplay, DRM_FORMAT_ARGB8888, handles, pitches, offsets, &fb2, 0));
    if (fb) {
        info("SetCrtc with it", drmModeSetCrtc(fd, crtc, fb, 0, 0, &conn->connector_id, 1, &mode));
        info("page flip to it", drmModePageFlip(fd, crtc, fb, 0, NULL));
    }
    drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
    drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
    drmModeFreePlaneResources(planes);
    planes = drmModeGetPlaneResources(fd);
    for (uint32_t i = 0; planes && i < planes->count_planes; i++) {
        drmModePlane *plane = drmModeGetPlane(fd, planes->planes[i]);
        drmModeObjectProperties *props = drmModeObjectGetProperties(fd, planes->planes[i], DRM_MODE_OBJECT_PLANE);
        const char *type = "?";
        for (uint32_t p = 0; props && p < props->count_props; p++) {
            drmModePropertyRes *prop = drmModeGetProperty(fd, props->props[p]);
            if (prop && !strcmp(prop->name, "type"))
                type = props->prop_values[p] == DRM_PLANE_TYPE_PRIMARY ? "primary" : props->prop_values[p] == DRM_PLANE_TYPE_OVERLAY ? "overlay" : "cursor";
            drmModeFreeProperty(prop);
        }
        printf("VITRINE-INFO scan-out probe: plane %u (%s), %u formats\n", plane->plane_id, type, plane->count_formats);
        drmModeFreeObjectProperties(props);
        drmModeFreePlane(plane);
    }
    return 0;
}
