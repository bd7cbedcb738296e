/* dmabuf-client: the DRM test's Wayland client of zwp_linux_dmabuf_v1 (docs/DRM-TEST.md,
 * the dmabuf guest). Its buffers are linear XRGB8888 dma-bufs: from /dev/udmabuf (a sealed
 * memfd, UDMABUF_CREATE) where the kernel has it, else dumb buffers of the feedback's main
 * device exported with PRIME (the same virtio-gpu the daemon drives).
 *
 *   dmabuf-client show    an xdg toplevel (app id "dmabuf") of the configured size showing
 *                         pattern 1 (`create`), then pattern 2 (`create_immed`), each
 *                         followed by "VITRINE-STEP n" once a frame showed it; the host
 *                         compares the screendump with the pattern (pattern.h); then
 *                         pattern 2's wl_buffer destroyed and the surface damaged: still
 *                         pattern 2, redrawn from the daemon's mapping (step 3); then
 *                         implicit sync, with an unsignalled write fence (vgem's, a
 *                         sync_file imported into the buffer's dma-buf): pattern 1
 *                         committed and held, pattern 2 still shown and no frame callback
 *                         (step 4), until the fence is signalled (step 5); a held buffer
 *                         destroyed: the commit goes on without it (step 6); a held
 *                         commit with two behind it: the second's buffer released unshown,
 *                         still pattern 1 (step 7), then the last, pattern 2 (step 8);
 *                         then the client disconnects with a commit held
 *   dmabuf-client scanout PID
 *                         direct scan-out (vitrined's PID, for its CPU time): a full-screen
 *                         toplevel alternating two buffers (pattern 1 and 2) is flipped
 *                         directly (output.list's directFrames counts every frame; a buffer
 *                         is released only once the next one is on screen; step 9, pattern
 *                         1); a red layer faded in over it (vitrinectl) makes the frames
 *                         composited (directFrames stays; step 10, pattern 3); removed, direct
 *                         again (step 11, pattern 1). The daemon's CPU time per client frame,
 *                         direct against composited, is reported.
 *   dmabuf-client errors  the protocol's errors, each on a connection of its own: plane
 *                         index, plane set twice, missing planes, format, modifier,
 *                         dimensions, out of bounds, used twice, and a descriptor that is
 *                         not a dma-buf (`failed`; `invalid_wl_buffer` from create_immed)
 *
 * Build: wayland-scanner client-header/private-code of xdg-shell and linux-dmabuf-unstable-v1
 * into a directory on the include path (drmtest.py does), then
 *   cc -O2 -I.. -IGEN dmabuf-client.c GEN/xdg-shell-protocol.c GEN/linux-dmabuf-unstable-v1-protocol.c \
 *      $(pkg-config --cflags --libs wayland-client libdrm)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/udmabuf.h>
#include <poll.h>
#include <time.h>
#include <xf86drm.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "pattern.h"

#define XR24 0x34325258u
#define NV12 0x3231564eu

static void fail(const char *fmt, const char *what)
{
    printf("VITRINE-FAIL dmabuf-client: ");
    printf(fmt, what);
    printf(" (%s)\n", strerror(errno));
    fflush(stdout);
    exit(1);
}

/* ---------------------------------------------------------------- connection */

struct client {
    struct wl_display *display;
    struct wl_compositor *compositor;
    struct xdg_wm_base *wm;
    struct zwp_linux_dmabuf_v1 *dmabuf;
    uint32_t dmabuf_version;
    dev_t main_device;
    int got_device, table_size, table_has_linear_xr24, feedback_done;
    int configured, width, height, frame_done;
    struct zwp_linux_buffer_params_v1 *params;
    struct wl_buffer *created;
    int failed;
};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version)
{
    struct client *c = data;
    if (!strcmp(interface, "wl_compositor")) c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (!strcmp(interface, "xdg_wm_base")) c->wm = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
    else if (!strcmp(interface, "zwp_linux_dmabuf_v1")) {
        c->dmabuf_version = version < 4 ? version : 4;
        c->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, c->dmabuf_version);
    }
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {}
static const struct wl_registry_listener registry_listener = { global, global_remove };

static void fb_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *f) { ((struct client *)data)->feedback_done = 1; }
static void fb_table(void *data, struct zwp_linux_dmabuf_feedback_v1 *f, int32_t fd, uint32_t size)
{
    struct client *c = data;
    c->table_size = (int)size;
    const uint8_t *table = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (table != MAP_FAILED) {
        for (uint32_t at = 0; at + 16 <= size; at += 16) {
            uint32_t format; uint64_t modifier;
            memcpy(&format, table + at, 4); memcpy(&modifier, table + at + 8, 8);
            if (format == XR24 && modifier == 0) c->table_has_linear_xr24 = 1;
        }
        munmap((void *)table, size);
    }
    close(fd);
}
static void fb_main_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *f, struct wl_array *device)
{
    struct client *c = data;
    if (device->size == sizeof(dev_t)) { memcpy(&c->main_device, device->data, sizeof(dev_t)); c->got_device = 1; }
}
static void fb_tranche_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *f) {}
static void fb_tranche_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *f, struct wl_array *device) {}
static void fb_tranche_formats(void *data, struct zwp_linux_dmabuf_feedback_v1 *f, struct wl_array *indices) {}
static void fb_tranche_flags(void *data, struct zwp_linux_dmabuf_feedback_v1 *f, uint32_t flags) {}
static const struct zwp_linux_dmabuf_feedback_v1_listener feedback_listener = {
    fb_done, fb_table, fb_main_device, fb_tranche_done, fb_tranche_device, fb_tranche_formats, fb_tranche_flags,
};

static void wm_ping(void *data, struct xdg_wm_base *wm, uint32_t serial) { xdg_wm_base_pong(wm, serial); }
static const struct xdg_wm_base_listener wm_listener = { wm_ping };

static void connect_to(struct client *c)
{
    memset(c, 0, sizeof *c);
    c->display = wl_display_connect(NULL);
    if (!c->display) fail("cannot connect to the Wayland display %s", getenv("WAYLAND_DISPLAY"));
    struct wl_registry *registry = wl_display_get_registry(c->display);
    wl_registry_add_listener(registry, &registry_listener, c);
    wl_display_roundtrip(c->display);
    if (!c->compositor || !c->wm || !c->dmabuf) fail("the compositor lacks wl_compositor, xdg_wm_base or %s", "zwp_linux_dmabuf_v1");
    xdg_wm_base_add_listener(c->wm, &wm_listener, c);
}

/* The protocol error the connection ended with: "interface code", or "none". */
static const char *protocol_error(struct client *c)
{
    static char text[128];
    wl_display_roundtrip(c->display);
    if (wl_display_get_error(c->display) != EPROTO) return "none";
    const struct wl_interface *interface = NULL;
    uint32_t id;
    uint32_t code = wl_display_get_protocol_error(c->display, &interface, &id);
    snprintf(text, sizeof text, "%s %u", interface ? interface->name : "?", code);
    return text;
}

/* ---------------------------------------------------------------- dma-bufs */

struct dmabuf { int fd; uint32_t stride; size_t size; uint32_t *pixels; };

/* The DRM device whose dev_t is `device` (a card node, for dumb buffers). */
static int open_device(dev_t device)
{
    DIR *dir = opendir("/dev/dri");
    struct dirent *entry;
    char path[300];
    while (dir && (entry = readdir(dir))) {
        struct stat info;
        snprintf(path, sizeof path, "/dev/dri/%s", entry->d_name);
        if (strncmp(entry->d_name, "card", 4) || stat(path, &info) || info.st_rdev != device) continue;
        closedir(dir);
        return open(path, O_RDWR | O_CLOEXEC);
    }
    if (dir) closedir(dir);
    return open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
}

static const char *allocator = "";

static struct dmabuf allocate(struct client *c, int w, int h)
{
    struct dmabuf b = { .fd = -1, .stride = (uint32_t)w * 4 };
    int udmabuf = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
    if (udmabuf >= 0) {
        allocator = "udmabuf";
        long page = sysconf(_SC_PAGESIZE);
        b.size = ((size_t)b.stride * h + page - 1) / page * page;
        int memfd = memfd_create("dmabuf-client", MFD_ALLOW_SEALING | MFD_CLOEXEC);
        if (memfd < 0 || ftruncate(memfd, b.size) || fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)) fail("%s", "memfd for udmabuf");
        struct udmabuf_create create = { .memfd = memfd, .flags = UDMABUF_FLAGS_CLOEXEC, .offset = 0, .size = b.size };
        b.fd = ioctl(udmabuf, UDMABUF_CREATE, &create);
        if (b.fd < 0) fail("%s", "UDMABUF_CREATE");
        close(memfd);
        close(udmabuf);
    } else {
        allocator = "DRM dumb buffer, PRIME";
        int drm = open_device(c->main_device);
        if (drm < 0) fail("%s", "no /dev/udmabuf and no DRM device to open");
        struct drm_mode_create_dumb create = { .width = (uint32_t)w, .height = (uint32_t)h, .bpp = 32 };
        if (drmIoctl(drm, DRM_IOCTL_MODE_CREATE_DUMB, &create)) fail("%s", "CREATE_DUMB");
        if (drmPrimeHandleToFD(drm, create.handle, DRM_CLOEXEC | DRM_RDWR, &b.fd)) fail("%s", "PRIME_HANDLE_TO_FD");
        b.stride = create.pitch;
        b.size = create.size;
        /* the dma-buf holds the object: the handle and the device may go */
        struct drm_mode_destroy_dumb destroy = { .handle = create.handle };
        drmIoctl(drm, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
        close(drm);
    }
    b.pixels = mmap(NULL, b.size, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
    if (b.pixels == MAP_FAILED) fail("%s", "mmap of the dma-buf");
    return b;
}

static void fill(struct dmabuf *b, int n, int w, int h)
{
    struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE };
    ioctl(b->fd, DMA_BUF_IOCTL_SYNC, &sync);
    for (int y = 0; y < h; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)b->pixels + (size_t)y * b->stride);
        for (int x = 0; x < w; x++) row[x] = pattern_pixel(n, x, y, w, h); /* XRGB: the X byte 0, never read */
    }
    sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
    ioctl(b->fd, DMA_BUF_IOCTL_SYNC, &sync);
}

static void created(void *data, struct zwp_linux_buffer_params_v1 *p, struct wl_buffer *buffer) { ((struct client *)data)->created = buffer; }
static void failed(void *data, struct zwp_linux_buffer_params_v1 *p) { ((struct client *)data)->failed = 1; }
static const struct zwp_linux_buffer_params_v1_listener params_listener = { created, failed };

static struct zwp_linux_buffer_params_v1 *params_of(struct client *c)
{
    struct zwp_linux_buffer_params_v1 *p = zwp_linux_dmabuf_v1_create_params(c->dmabuf);
    zwp_linux_buffer_params_v1_add_listener(p, &params_listener, c);
    c->created = NULL;
    c->failed = 0;
    return p;
}

static void add(struct zwp_linux_buffer_params_v1 *p, int fd, uint32_t plane, uint32_t offset, uint32_t stride, uint64_t modifier)
{
    zwp_linux_buffer_params_v1_add(p, fd, plane, offset, stride, (uint32_t)(modifier >> 32), (uint32_t)modifier);
}

/* ---------------------------------------------------------------- show */

static void xdg_configure(void *data, struct xdg_surface *s, uint32_t serial)
{
    xdg_surface_ack_configure(s, serial);
    ((struct client *)data)->configured = 1;
}
static const struct xdg_surface_listener xdg_surface_listener = { xdg_configure };
static void top_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states)
{
    struct client *c = data;
    if (w > 0 && h > 0) { c->width = w; c->height = h; }
}
static void top_close(void *data, struct xdg_toplevel *t) {}
static const struct xdg_toplevel_listener toplevel_listener = { top_configure, top_close };

/* A toplevel (app id "dmabuf") of `c`, once configured with a size. */
static struct wl_surface *toplevel(struct client *c)
{
    struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
    struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(c->wm, surface);
    xdg_surface_add_listener(xs, &xdg_surface_listener, c);
    struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);
    xdg_toplevel_add_listener(top, &toplevel_listener, c);
    xdg_toplevel_set_app_id(top, "dmabuf");
    wl_surface_commit(surface);
    while (!c->configured && wl_display_dispatch(c->display) >= 0) {}
    if (c->width <= 0 || c->height <= 0) fail("%s", "the toplevel was configured without a size");
    return surface;
}

static void frame_done(void *data, struct wl_callback *cb, uint32_t time) { ((struct client *)data)->frame_done = 1; wl_callback_destroy(cb); }
static const struct wl_callback_listener frame_listener = { frame_done };

static void step(int n, const char *what)
{
    printf("VITRINE-STEP %d %s\n", n, what);
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) { /* the host went away: go on */ }
}

/* Commits `buffer` (NULL: no attach, only damage) and waits for the frame that shows it. */
static void show_and_wait(struct client *c, struct wl_surface *surface, struct wl_buffer *buffer)
{
    c->frame_done = 0;
    if (buffer) wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, INT32_MAX, INT32_MAX);
    wl_callback_add_listener(wl_surface_frame(surface), &frame_listener, c);
    wl_surface_commit(surface);
    while (!c->frame_done)
        if (wl_display_dispatch(c->display) < 0) fail("the connection failed while waiting for a frame: %s", protocol_error(c));
}

static void implicit_sync(struct client *c, struct wl_surface *surface, int w, int h);

static int show(void)
{
    struct client c;
    connect_to(&c);
    if (c.dmabuf_version >= 4) {
        struct zwp_linux_dmabuf_feedback_v1 *f = zwp_linux_dmabuf_v1_get_default_feedback(c.dmabuf);
        zwp_linux_dmabuf_feedback_v1_add_listener(f, &feedback_listener, &c);
        while (!c.feedback_done && wl_display_dispatch(c.display) >= 0) {}
        if (!c.got_device || !c.table_has_linear_xr24) fail("the default feedback lacks %s", "a main device or XR24 linear");
        printf("VITRINE-INFO feedback: main device %u:%u, format table %d bytes with XR24 linear\n", major(c.main_device), minor(c.main_device),
               c.table_size);
    }
    struct wl_surface *surface = toplevel(&c);
    int w = c.width, h = c.height;

    struct dmabuf one = allocate(&c, w, h);
    fill(&one, 1, w, h);
    struct zwp_linux_buffer_params_v1 *p = params_of(&c);
    add(p, one.fd, 0, 0, one.stride, 0);
    zwp_linux_buffer_params_v1_create(p, w, h, XR24, 0);
    while (!c.created && !c.failed && wl_display_dispatch(c.display) >= 0) {}
    if (!c.created) fail("create of a linear XR24 dma-buf: %s", c.failed ? "failed" : protocol_error(&c));
    zwp_linux_buffer_params_v1_destroy(p);
    printf("VITRINE-INFO %dx%d buffers from %s, rows %u bytes apart\n", w, h, allocator, one.stride);
    show_and_wait(&c, surface, c.created);
    step(1, "pattern 1 from a dma-buf made with create");

    struct dmabuf two = allocate(&c, w, h);
    fill(&two, 2, w, h);
    p = params_of(&c);
    add(p, two.fd, 0, 0, two.stride, 0);
    struct wl_buffer *immediate = zwp_linux_buffer_params_v1_create_immed(p, w, h, XR24, 0);
    zwp_linux_buffer_params_v1_destroy(p);
    show_and_wait(&c, surface, immediate);
    step(2, "pattern 2 from a dma-buf made with create_immed");

    /* the wl_buffer shown destroyed, then the whole surface damaged without a new buffer:
       the daemon redraws it from its own mapping of the dma-buf */
    wl_buffer_destroy(immediate);
    show_and_wait(&c, surface, NULL);
    step(3, "pattern 2 redrawn after its wl_buffer was destroyed");
    implicit_sync(&c, surface, w, h);
    return 0;
}

/* ---------------------------------------------------------------- implicit sync */

/* vgem's fence ioctls (the kernel's include/uapi/drm/vgem_drm.h, which libdrm does not
   install): an unsignalled fence on a vgem object, signalled when asked (or by itself
   after 10 s). Debian's kernel has no CONFIG_SW_SYNC, but builds vgem. */
struct vgem_fence_attach { uint32_t handle, flags, out_fence, pad; };
struct vgem_fence_signal { uint32_t fence, flags; };
#define VGEM_FENCE_WRITE 0x1
#define IOCTL_VGEM_FENCE_ATTACH DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct vgem_fence_attach)
#define IOCTL_VGEM_FENCE_SIGNAL DRM_IOW(DRM_COMMAND_BASE + 0x2, struct vgem_fence_signal)

struct fence { int vgem; uint32_t id; };

static int open_vgem(void)
{
    char path[32];
    for (int n = 0; n < 8; n++) {
        snprintf(path, sizeof path, "/dev/dri/card%d", n);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) continue;
        drmVersionPtr version = drmGetVersion(fd);
        int is_vgem = version && !strcmp(version->name, "vgem");
        drmFreeVersion(version);
        if (is_vgem) return fd;
        close(fd);
    }
    fail("%s", "no vgem device (modprobe vgem)");
    return -1;
}

/* An unsignalled fence made the write fence of `b` (DMA_BUF_IOCTL_IMPORT_SYNC_FILE of the
   sync_file exported from a fenced vgem object): `b` does not poll readable until it is
   signalled. */
static struct fence fence_writes(int vgem, struct dmabuf *b)
{
    struct drm_mode_create_dumb create = { .width = 16, .height = 16, .bpp = 32 };
    if (drmIoctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create)) fail("%s", "vgem CREATE_DUMB");
    struct vgem_fence_attach attach = { .handle = create.handle, .flags = VGEM_FENCE_WRITE };
    if (drmIoctl(vgem, IOCTL_VGEM_FENCE_ATTACH, &attach)) fail("%s", "VGEM_FENCE_ATTACH");
    int object;
    if (drmPrimeHandleToFD(vgem, create.handle, DRM_CLOEXEC, &object)) fail("%s", "vgem PRIME_HANDLE_TO_FD");
    struct dma_buf_export_sync_file exported = { .flags = DMA_BUF_SYNC_READ, .fd = -1 };
    if (ioctl(object, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exported)) fail("%s", "DMA_BUF_IOCTL_EXPORT_SYNC_FILE");
    struct dma_buf_import_sync_file imported = { .flags = DMA_BUF_SYNC_WRITE, .fd = exported.fd };
    if (ioctl(b->fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imported)) fail("%s", "DMA_BUF_IOCTL_IMPORT_SYNC_FILE");
    close(exported.fd);
    close(object);
    struct drm_mode_destroy_dumb destroy = { .handle = create.handle };
    drmIoctl(vgem, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
    struct pollfd ready = { .fd = b->fd, .events = POLLIN };
    if (poll(&ready, 1, 0) != 0) fail("%s", "the fenced dma-buf polls readable");
    return (struct fence){ vgem, attach.out_fence };
}

static void signal_fence(struct fence f)
{
    struct vgem_fence_signal signal = { .fence = f.id };
    if (drmIoctl(f.vgem, IOCTL_VGEM_FENCE_SIGNAL, &signal)) fail("%s", "VGEM_FENCE_SIGNAL");
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Dispatches the connection's events for `seconds`, or until a frame callback is done. */
static void dispatch_for(struct client *c, double seconds)
{
    double end = now() + seconds;
    while (!c->frame_done && now() < end) {
        wl_display_flush(c->display);
        struct pollfd p = { .fd = wl_display_get_fd(c->display), .events = POLLIN };
        if (poll(&p, 1, (int)((end - now()) * 1000) + 1) > 0 && wl_display_dispatch(c->display) < 0)
            fail("the connection failed: %s", protocol_error(c));
    }
}

static void buffer_release(void *data, struct wl_buffer *buffer) { *(int *)data = 1; }
static const struct wl_buffer_listener release_listener = { buffer_release };

/* A linear XR24 wl_buffer of `b` (create_immed). */
static struct wl_buffer *buffer_of(struct client *c, struct dmabuf *b, int w, int h)
{
    struct zwp_linux_buffer_params_v1 *p = params_of(c);
    add(p, b->fd, 0, 0, b->stride, 0);
    struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(p, w, h, XR24, 0);
    zwp_linux_buffer_params_v1_destroy(p);
    return buffer;
}

/* Commits `buffer` with damage and a frame callback, without waiting. */
static void commit(struct client *c, struct wl_surface *surface, struct wl_buffer *buffer)
{
    c->frame_done = 0;
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, INT32_MAX, INT32_MAX);
    wl_callback_add_listener(wl_surface_frame(surface), &frame_listener, c);
    wl_surface_commit(surface);
    wl_display_roundtrip(c->display);
}

/* Steps 4-8 (pattern 2 shown), then a disconnection with a commit held. */
static void implicit_sync(struct client *c, struct wl_surface *surface, int w, int h)
{
    int vgem = open_vgem();
    struct dmabuf three = allocate(c, w, h);
    fill(&three, 1, w, h);
    struct wl_buffer *buffer = buffer_of(c, &three, w, h);
    struct fence f = fence_writes(vgem, &three);
    double fenced = now();
    commit(c, surface, buffer);
    dispatch_for(c, 1.0);
    if (c->frame_done) fail("%s", "a frame callback came while the commit's write fence was unsignalled");
    printf("VITRINE-INFO a commit of a dma-buf with an unsignalled write fence: no frame callback in 1 s\n");
    step(4, "pattern 2 still shown: pattern 1's commit held for its write fence");
    if (now() - fenced > 9) printf("VITRINE-INFO step 4 took %.1f s: vgem's fence signals by itself after 10 s\n", now() - fenced);
    double signalled = now();
    signal_fence(f);
    dispatch_for(c, 5.0);
    if (!c->frame_done) fail("%s", "no frame callback within 5 s of the fence signalled");
    printf("VITRINE-INFO the held commit shown %.0f ms after its fence was signalled\n", (now() - signalled) * 1000);
    step(5, "pattern 1 once its write fence was signalled");

    struct dmabuf four = allocate(c, w, h);
    fill(&four, 2, w, h);
    buffer = buffer_of(c, &four, w, h);
    f = fence_writes(vgem, &four);
    commit(c, surface, buffer);
    wl_buffer_destroy(buffer);
    dispatch_for(c, 5.0);
    if (!c->frame_done) fail("%s", "no frame callback within 5 s of a held buffer destroyed");
    printf("VITRINE-INFO a held commit whose wl_buffer was destroyed went on without it\n");
    signal_fence(f);
    step(6, "pattern 1 still: the held commit's buffer destroyed");

    struct dmabuf six = allocate(c, w, h), seven = allocate(c, w, h), eight = allocate(c, w, h);
    fill(&six, 2, w, h);
    fill(&seven, 1, w, h);
    fill(&eight, 2, w, h);
    struct wl_buffer *held = buffer_of(c, &six, w, h), *behind = buffer_of(c, &seven, w, h), *last = buffer_of(c, &eight, w, h);
    int released = 0;
    wl_buffer_add_listener(behind, &release_listener, &released);
    f = fence_writes(vgem, &six);
    commit(c, surface, held);
    commit(c, surface, behind);
    commit(c, surface, last);
    dispatch_for(c, 1.0);
    if (c->frame_done) fail("%s", "a frame callback came while the first of three commits was held");
    if (!released) fail("%s", "the buffer of a commit merged away behind a held one was not released");
    printf("VITRINE-INFO three commits, the first held: the second's buffer released unshown, no frame callback\n");
    step(7, "pattern 1 still: a held commit and two behind it");
    signal_fence(f);
    dispatch_for(c, 5.0);
    if (!c->frame_done) fail("%s", "no frame callback within 5 s of the first commit's fence signalled");
    step(8, "pattern 2 of the last commit, once the first's fence was signalled");

    struct dmabuf five = allocate(c, w, h);
    fill(&five, 2, w, h);
    buffer = buffer_of(c, &five, w, h);
    fence_writes(vgem, &five);
    commit(c, surface, buffer);
    printf("VITRINE-INFO disconnecting with a commit held (its fence unsignalled)\n");
    wl_display_disconnect(c->display);
}

/* ---------------------------------------------------------------- scanout */

static int scanout_released[2];
static void scanout_release(void *data, struct wl_buffer *b) { scanout_released[(intptr_t)data]++; }
static const struct wl_buffer_listener scanout_listener = { scanout_release };

/* The output's frames shown directly (output.list's directFrames), by vitrinectl. */
static long direct_frames(void)
{
    FILE *p = popen("vitrinectl send '{\"cmd\":\"output.list\"}'", "r");
    char text[4096] = "";
    size_t n = p ? fread(text, 1, sizeof text - 1, p) : 0;
    if (p) pclose(p);
    text[n] = 0;
    const char *at = strstr(text, "\"directFrames\":");
    if (!at) fail("output.list has no directFrames: %s", text);
    return atol(at + strlen("\"directFrames\":"));
}

static long system_ticks;

/* vitrined's CPU time so far, in clock ticks (utime + stime of /proc/PID/stat). */
static long cpu_ticks(int pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = 0;
    char *rest = strrchr(text, ')');
    long utime = 0, stime = 0;
    if (!rest || sscanf(rest + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime, &stime) != 2) fail("%s", "reading /proc/PID/stat");
    system_ticks = stime;
    return utime + stime;
}

static void vitrinectl(const char *command)
{
    char line[512];
    snprintf(line, sizeof line, "vitrinectl send '%s' | grep -q '\"ok\":true'", command);
    if (system(line) != 0) fail("vitrinectl send %s failed", command);
}

#define SCANOUT_FRAMES 121

/* Shows the two buffers in turn, SCANOUT_FRAMES frames ending on the first; returns the
   daemon's CPU ticks over them. */
static long alternate(struct client *c, struct wl_surface *surface, struct wl_buffer **buffers, int pid)
{
    long before = cpu_ticks(pid), kernel = system_ticks;
    for (int i = 1; i <= SCANOUT_FRAMES; i++) show_and_wait(c, surface, buffers[i % 2 ? 0 : 1]);
    long ticks = cpu_ticks(pid) - before;
    printf("VITRINE-INFO %ld of the %ld ticks in the kernel\n", system_ticks - kernel, ticks);
    return ticks;
}

static int scanout(int pid)
{
    struct client c;
    connect_to(&c);
    struct wl_surface *surface = toplevel(&c);
    int w = c.width, h = c.height;
    struct wl_buffer *buffers[2];
    for (int n = 0; n < 2; n++) {
        struct dmabuf b = allocate(&c, w, h);
        fill(&b, n + 1, w, h);
        struct zwp_linux_buffer_params_v1 *p = params_of(&c);
        add(p, b.fd, 0, 0, b.stride, 0);
        buffers[n] = zwp_linux_buffer_params_v1_create_immed(p, w, h, XR24, 0);
        zwp_linux_buffer_params_v1_destroy(p);
        wl_buffer_add_listener(buffers[n], &scanout_listener, (void *)(intptr_t)n);
    }

    long first = direct_frames();
    show_and_wait(&c, surface, buffers[0]);
    wl_display_roundtrip(c.display);
    if (scanout_released[0]) fail("%s", "the buffer on screen was released");
    show_and_wait(&c, surface, buffers[1]);
    /* released once the flip to the second buffer has completed, which may come after the frame callback */
    for (int i = 0; i < 100 && !scanout_released[0]; i++) {
        wl_display_roundtrip(c.display);
        usleep(10000);
    }
    if (scanout_released[0] != 1 || scanout_released[1]) {
        printf("VITRINE-INFO releases: %d of the buffer flipped away from, %d of the one on screen; %ld frames scanned out\n", scanout_released[0],
               scanout_released[1], direct_frames() - first);
        fail("%s", "the buffer flipped away from was not released once (or the one on screen was)");
    }
    long direct = alternate(&c, surface, buffers, pid);
    long shown = direct_frames() - first;
    printf("VITRINE-INFO direct: %ld of %d frames scanned out, vitrined %ld ticks for %d client frames\n", shown, SCANOUT_FRAMES + 2, direct,
           SCANOUT_FRAMES);
    if (shown < SCANOUT_FRAMES + 2) fail("%s", "frames of a full-screen dma-buf window were composited, not scanned out");
    step(9, "pattern 1 scanned out directly");

    char command[400];
    snprintf(command, sizeof command,
             "{\"cmd\":\"layer.add\",\"layer\":\"veil\",\"parent\":\"root\",\"properties\":{\"bounds\":[0,0,%d,%d],\"position\":[%d,%d],"
             "\"backgroundColor\":\"#ff0000\",\"opacity\":0}}",
             w / 2, h / 2, w / 2, h / 2);
    vitrinectl(command);
    vitrinectl("{\"cmd\":\"layer.set\",\"layer\":\"veil\",\"properties\":{\"opacity\":1},\"animation\":{\"duration\":0.5}}");
    usleep(800000);
    first = direct_frames();
    long composited = alternate(&c, surface, buffers, pid);
    shown = direct_frames() - first;
    printf("VITRINE-INFO composited (a layer over the window): %ld of %d frames scanned out, vitrined %ld ticks for %d client frames\n", shown,
           SCANOUT_FRAMES, composited, SCANOUT_FRAMES);
    if (shown) fail("%s", "frames were scanned out with a layer over the window");
    double ratio = composited > 0 ? (double)direct / composited : 1;
    printf("VITRINE-INFO vitrined's CPU per client frame, direct / composited: %.3f (%ld / %ld ticks)\n", ratio, direct, composited);
    if (ratio > 0.5) fail("%s", "direct scan-out did not lower the daemon's CPU time per frame");
    step(10, "pattern 1 composited under the red layer");

    vitrinectl("{\"cmd\":\"layer.remove\",\"layer\":\"veil\"}");
    first = direct_frames();
    show_and_wait(&c, surface, buffers[1]);
    show_and_wait(&c, surface, buffers[0]);
    shown = direct_frames() - first;
    printf("VITRINE-INFO the layer removed: %ld frames scanned out\n", shown);
    if (shown < 2) fail("%s", "no direct scan-out once the layer over the window was removed");
    step(11, "pattern 1 scanned out again");
    return 0;
}

/* ---------------------------------------------------------------- errors */

static int failures;

static void expect(struct client *c, const char *what, const char *expected)
{
    const char *got = protocol_error(c);
    if (strcmp(got, expected)) {
        printf("VITRINE-FAIL %s: the compositor sent %s, not %s\n", what, got, expected);
        failures++;
    } else {
        printf("VITRINE-INFO %s: %s\n", what, got);
    }
    fflush(stdout);
    wl_display_disconnect(c->display);
}

static int errors(void)
{
    const char *params = "zwp_linux_buffer_params_v1";
    char e[64];
    struct client c;
    connect_to(&c);
    int w = 64, h = 32;
    struct dmabuf b = allocate(&c, w, h);
    wl_display_disconnect(c.display);
#define CASE(what, code, body)                                       \
    do {                                                             \
        connect_to(&c);                                              \
        struct zwp_linux_buffer_params_v1 *p = params_of(&c);        \
        body;                                                        \
        snprintf(e, sizeof e, "%s %d", params, code);                \
        expect(&c, what, e);                                         \
    } while (0)
    CASE("plane index 4", 1, add(p, b.fd, 4, 0, b.stride, 0));
    CASE("plane 0 set twice", 2, (add(p, b.fd, 0, 0, b.stride, 0), add(p, b.fd, 0, 0, b.stride, 0)));
    CASE("plane 1 without plane 0", 3, (add(p, b.fd, 1, 0, b.stride, 0), zwp_linux_buffer_params_v1_create(p, w, h, XR24, 0)));
    CASE("two planes of XR24", 3,
         (add(p, b.fd, 0, 0, b.stride, 0), add(p, b.fd, 1, 0, b.stride, 0), zwp_linux_buffer_params_v1_create(p, w, h, XR24, 0)));
    CASE("format NV12", 4, (add(p, b.fd, 0, 0, b.stride, 0), zwp_linux_buffer_params_v1_create(p, w, h, NV12, 0)));
    CASE("an X-tiled modifier", 4,
         (add(p, b.fd, 0, 0, b.stride, 0x0100000000000001ull), zwp_linux_buffer_params_v1_create(p, w, h, XR24, 0)));
    CASE("width 0", 5, (add(p, b.fd, 0, 0, b.stride, 0), zwp_linux_buffer_params_v1_create(p, 0, h, XR24, 0)));
    CASE("rows beyond the buffer", 6, (add(p, b.fd, 0, 0, b.stride, 0), zwp_linux_buffer_params_v1_create(p, w, h * 64, XR24, 0)));
    CASE("an offset beyond the buffer", 6,
         (add(p, b.fd, 0, (uint32_t)b.size, b.stride, 0), zwp_linux_buffer_params_v1_create_immed(p, w, h, XR24, 0)));
    CASE("create twice", 0,
         (add(p, b.fd, 0, 0, b.stride, 0), zwp_linux_buffer_params_v1_create(p, w, h, XR24, 0),
          zwp_linux_buffer_params_v1_create(p, w, h, XR24, 0)));
    int memfd = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
    if (ftruncate(memfd, (off_t)b.size)) fail("%s", "ftruncate");
    CASE("create_immed of a memfd", 7, (add(p, memfd, 0, 0, b.stride, 0), zwp_linux_buffer_params_v1_create_immed(p, w, h, XR24, 0)));

    /* not a client's mistake: `failed`, and the connection goes on */
    connect_to(&c);
    struct zwp_linux_buffer_params_v1 *p = params_of(&c);
    add(p, memfd, 0, 0, b.stride, 0);
    zwp_linux_buffer_params_v1_create(p, w, h, XR24, 0);
    while (!c.created && !c.failed && wl_display_dispatch(c.display) >= 0) {}
    if (!c.failed) {
        printf("VITRINE-FAIL create of a memfd: no failed event (%s)\n", protocol_error(&c));
        failures++;
    } else {
        zwp_linux_buffer_params_v1_destroy(p);
        expect(&c, "create of a memfd: failed, then", "none");
    }
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && !strcmp(argv[1], "show")) return show();
    if (argc == 2 && !strcmp(argv[1], "errors")) return errors();
    if (argc == 3 && !strcmp(argv[1], "scanout")) return scanout(atoi(argv[2]));
    fprintf(stderr, "usage: dmabuf-client show|errors|scanout PID\n");
    return 2;
}
