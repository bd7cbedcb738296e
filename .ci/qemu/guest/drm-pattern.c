/* drm-pattern: the harness's own guest program, proving the QEMU DRM test independently
 * of vitrined. Opens /dev/dri/card0, takes the first connected connector's preferred mode,
 * shows pattern 1 in a dumb buffer with SetCrtc, then page-flips to a second dumb buffer
 * holding pattern 2 and counts the flip events. After each step it prints
 * "VITRINE-STEP n ..." on stdout (the serial console) and waits for a line on stdin: the
 * host takes its screendump in between.
 *
 * With --hold (drm-pattern DEVICE --hold) it stands in for a boot splash handing over, as
 * Plymouth does on `plymouth deactivate`: pattern 1 via SetCrtc, then DRM master dropped
 * with the device and its framebuffer kept open, so that the picture stays on the screen
 * until the next master (vitrined) puts its own there; it waits until it is killed.
 *
 *   cc -O2 -I/usr/include/libdrm -I.. drm-pattern.c -ldrm -o drm-pattern
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <poll.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include "pattern.h"

struct buffer { uint32_t handle, pitch, fb; uint64_t size; uint8_t *map; };

static void die(const char *what)
{
    printf("VITRINE-FAIL drm-pattern: %s: %s\n", what, strerror(errno));
    fflush(stdout);
    exit(1);
}

static void step(int n, const char *what)
{
    printf("VITRINE-STEP %d %s\n", n, what);
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) { /* the host went away: go on */ }
}

static void create(int fd, struct buffer *b, int w, int h, int n)
{
    struct drm_mode_create_dumb create = { .width = w, .height = h, .bpp = 32 };
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create)) die("CREATE_DUMB");
    b->handle = create.handle; b->pitch = create.pitch; b->size = create.size;
    if (drmModeAddFB(fd, w, h, 24, 32, b->pitch, b->handle, &b->fb)) die("AddFB");
    struct drm_mode_map_dumb map = { .handle = b->handle };
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map)) die("MAP_DUMB");
    b->map = mmap(0, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.offset);
    if (b->map == MAP_FAILED) die("mmap");
    for (int y = 0; y < h; y++) {
        uint32_t *row = (uint32_t *)(b->map + (size_t)y * b->pitch);
        for (int x = 0; x < w; x++) row[x] = 0xff000000u | pattern_pixel(n, x, y, w, h);
    }
}

static int flips;
static void flipped(int fd, unsigned seq, unsigned s, unsigned us, void *data)
{
    (void)fd; (void)seq; (void)s; (void)us; (void)data;
    flips++;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/dev/dri/card0";
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) die(path);
    drmModeRes *res = drmModeGetResources(fd);
    if (!res) die("GetResources");
    drmModeConnector *conn = NULL;
    for (int i = 0; i < res->count_connectors; i++) {
        conn = drmModeGetConnector(fd, res->connectors[i]);
        if (conn && conn->connection == DRM_MODE_CONNECTED && conn->count_modes > 0) break;
        drmModeFreeConnector(conn);
        conn = NULL;
    }
    if (!conn) { errno = ENODEV; die("no connected connector"); }
    drmModeModeInfo mode = conn->modes[0];
    for (int i = 0; i < conn->count_modes; i++)
        if (conn->modes[i].type & DRM_MODE_TYPE_PREFERRED) { mode = conn->modes[i]; break; }
    uint32_t crtc = 0;
    drmModeEncoder *enc = conn->encoder_id ? drmModeGetEncoder(fd, conn->encoder_id) : NULL;
    if (enc && enc->crtc_id) crtc = enc->crtc_id;
    for (int i = 0; !crtc && i < conn->count_encoders; i++) {
        drmModeEncoder *e = drmModeGetEncoder(fd, conn->encoders[i]);
        for (int j = 0; e && j < res->count_crtcs; j++)
            if (e->possible_crtcs & (1u << j)) { crtc = res->crtcs[j]; break; }
        drmModeFreeEncoder(e);
    }
    if (!crtc) { errno = ENODEV; die("no CRTC"); }
    int w = mode.hdisplay, h = mode.vdisplay;
    printf("VITRINE-INFO drm-pattern connector %u mode %s %dx%d@%u crtc %u\n",
           conn->connector_id, mode.name, w, h, mode.vrefresh, crtc);

    struct buffer a, b;
    create(fd, &a, w, h, 1);
    create(fd, &b, w, h, 2);
    if (drmModeSetCrtc(fd, crtc, a.fb, 0, 0, &conn->connector_id, 1, &mode)) die("SetCrtc");
    /* A dumb buffer written through a CPU mapping needs a dirty call on GPUs that copy it
     * (virtio-gpu transfers to the host resource on DIRTYFB or a flip). */
    drmModeDirtyFB(fd, a.fb, NULL, 0);
    if (argc > 2 && strcmp(argv[2], "--hold") == 0) {
        if (drmDropMaster(fd)) die("DropMaster");
        printf("VITRINE-INFO drm-pattern: pattern 1 on the screen, DRM master dropped, device kept open\n");
        fflush(stdout);
        for (;;) pause();
    }
    step(1, "pattern 1 via SetCrtc");

    drmEventContext ev = { .version = 2, .page_flip_handler = flipped };
    int requested = 0;
    for (int i = 0; i < 10; i++) {
        struct buffer *next = (i % 2 == 0) ? &b : &a;
        if (drmModePageFlip(fd, crtc, next->fb, DRM_MODE_PAGE_FLIP_EVENT, NULL)) die("PageFlip");
        requested++;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 5000) != 1) { errno = ETIMEDOUT; die("flip event"); }
        drmHandleEvent(fd, &ev);
    }
    /* An even number of flips from a ends on a; one more to b shows pattern 2. */
    if (drmModePageFlip(fd, crtc, b.fb, DRM_MODE_PAGE_FLIP_EVENT, NULL)) die("PageFlip");
    requested++;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    if (poll(&p, 1, 5000) != 1) { errno = ETIMEDOUT; die("flip event"); }
    drmHandleEvent(fd, &ev);
    printf("VITRINE-INFO drm-pattern flips requested %d completed %d\n", requested, flips);
    step(2, "pattern 2 via page flip");
    return flips == requested ? 0 : 1;
}
