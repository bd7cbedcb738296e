#include "CNeatVNC.h"

#include <CLazyLibrary.h>
#include <pixman.h>

static struct vitrine_lazy_library neatvnc = {.soname = "libneatvnc.so.0", .package = "libneatvnc0"};
static struct vitrine_lazy_library aml = {.soname = "libaml.so.0", .package = "libaml0"};
static struct vitrine_lazy_library pixman = {.soname = "libpixman-1.so.0", .package = "libpixman-1-0"};

__attribute__((visibility("hidden"))) const char *vitrine_vnc_load(void) {
    const char *failure = vitrine_lazy_load(&aml);
    if (!failure) failure = vitrine_lazy_load(&pixman);
    if (!failure) failure = vitrine_lazy_load(&neatvnc);
    return failure;
}

static void *neatvnc_symbol(const char *name) { return vitrine_lazy_symbol(&neatvnc, name); }
static void *aml_symbol(const char *name) { return vitrine_lazy_symbol(&aml, name); }
static void *pixman_symbol(const char *name) { return vitrine_lazy_symbol(&pixman, name); }

#define N(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(neatvnc_symbol, type, name, parameters, arguments)
#define NP(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(neatvnc_symbol, name, parameters, arguments)
#define A(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(aml_symbol, type, name, parameters, arguments)
#define AP(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(aml_symbol, name, parameters, arguments)
#define X(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(pixman_symbol, type, name, parameters, arguments)
#define XP(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(pixman_symbol, name, parameters, arguments)

N(struct nvnc *, nvnc_open, (const char *addr, uint16_t port), (addr, port))
N(struct nvnc *, nvnc_open_unix, (const char *addr), (addr))
NP(nvnc_close, (struct nvnc * self), (self))
NP(nvnc_add_display, (struct nvnc * self, struct nvnc_display *display), (self, display))
NP(nvnc_remove_display, (struct nvnc * self, struct nvnc_display *display), (self, display))
NP(nvnc_set_userdata, (void *self, void *userdata, nvnc_cleanup_fn cleanup), (self, userdata, cleanup))
N(void *, nvnc_get_userdata, (const void *self), (self))
N(struct nvnc *, nvnc_client_get_server, (const struct nvnc_client *client), (client))
NP(nvnc_set_name, (struct nvnc * self, const char *name), (self, name))
NP(nvnc_set_key_fn, (struct nvnc * self, nvnc_key_fn fn), (self, fn))
NP(nvnc_set_pointer_fn, (struct nvnc * self, nvnc_pointer_fn fn), (self, fn))
NP(nvnc_set_new_client_fn, (struct nvnc * self, nvnc_client_fn fn), (self, fn))
NP(nvnc_set_client_cleanup_fn, (struct nvnc_client * self, nvnc_client_fn fn), (self, fn))
N(bool, nvnc_has_auth, (void), ())
N(int, nvnc_enable_auth, (struct nvnc * self, const char *privkey_path, const char *cert_path, nvnc_auth_fn fn, void *userdata),
  (self, privkey_path, cert_path, fn, userdata))
N(struct nvnc_fb *, nvnc_fb_new, (uint16_t width, uint16_t height, uint32_t fourcc_format, uint16_t stride), (width, height, fourcc_format, stride))
NP(nvnc_fb_unref, (struct nvnc_fb * fb), (fb))
NP(nvnc_fb_set_release_fn, (struct nvnc_fb * fb, nvnc_fb_release_fn fn, void *context), (fb, fn, context))
N(void *, nvnc_fb_get_addr, (const struct nvnc_fb *fb), (fb))
N(int32_t, nvnc_fb_get_stride, (const struct nvnc_fb *fb), (fb))
N(struct nvnc_display *, nvnc_display_new, (uint16_t x_pos, uint16_t y_pos), (x_pos, y_pos))
NP(nvnc_display_unref, (struct nvnc_display * display), (display))
NP(nvnc_display_feed_buffer, (struct nvnc_display * display, struct nvnc_fb *fb, struct pixman_region16 *damage), (display, fb, damage))
NP(nvnc_set_log_level, (enum nvnc_log_level level), (level))

A(struct aml *, aml_new, (void), ())
A(int, aml_require_workers, (struct aml * aml, int n), (aml, n))
AP(aml_set_default, (struct aml * aml), (aml))
A(int, aml_poll, (struct aml * aml, int timeout), (aml, timeout))
AP(aml_dispatch, (struct aml * aml), (aml))
A(int, aml_get_fd, (const void *obj), (obj))
A(int, aml_unref, (void *obj), (obj))

XP(pixman_region_init, (pixman_region16_t * region), (region))
X(pixman_bool_t, pixman_region_union_rect, (pixman_region16_t * dest, const pixman_region16_t *source, int x, int y, unsigned int width, unsigned int height),
  (dest, source, x, y, width, height))
XP(pixman_region_fini, (pixman_region16_t * region), (region))

__attribute__((visibility("hidden"))) void vitrine_vnc_feed(struct nvnc_display *display, struct nvnc_fb *fb, const int32_t *rects, int count) {
    pixman_region16_t damage;
    pixman_region_init(&damage);
    for (int i = 0; i < count; i++) {
        const int32_t *r = rects + 4 * i;
        if (r[2] > 0 && r[3] > 0) pixman_region_union_rect(&damage, &damage, r[0], r[1], (unsigned int)r[2], (unsigned int)r[3]);
    }
    nvnc_display_feed_buffer(display, fb, &damage);
    pixman_region_fini(&damage);
}
