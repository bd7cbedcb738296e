#ifndef VITRINE_CLINUXCONSOLE_SHIM_H
#define VITRINE_CLINUXCONSOLE_SHIM_H

/* The Linux console ioctls the fbdev backend and VT handling use. ioctl(2) is variadic,
   which Swift cannot call: one typed wrapper per request, each returning 0 or -1 with
   errno set. */

#include <sys/ioctl.h>
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/vt.h>

static inline int vitrine_fb_get_vscreeninfo(int fd, struct fb_var_screeninfo *info) {
    return ioctl(fd, FBIOGET_VSCREENINFO, info);
}

static inline int vitrine_fb_get_fscreeninfo(int fd, struct fb_fix_screeninfo *info) {
    return ioctl(fd, FBIOGET_FSCREENINFO, info);
}

static inline int vitrine_kd_get_mode(int fd, int *mode) {
    return ioctl(fd, KDGETMODE, mode);
}

static inline int vitrine_kd_set_mode(int fd, int mode) {
    return ioctl(fd, KDSETMODE, mode);
}

static inline int vitrine_vt_get_mode(int fd, struct vt_mode *mode) {
    return ioctl(fd, VT_GETMODE, mode);
}

static inline int vitrine_vt_set_mode(int fd, const struct vt_mode *mode) {
    return ioctl(fd, VT_SETMODE, mode);
}

static inline int vitrine_vt_release_display(int fd, int how) {
    return ioctl(fd, VT_RELDISP, how);
}

static inline int vitrine_vt_get_state(int fd, struct vt_stat *state) {
    return ioctl(fd, VT_GETSTATE, state);
}

/* The keyboard mode (K_XLATE, K_UNICODE, K_OFF…): K_OFF keeps keystrokes from the VT
   while the daemon reads the keyboards itself. */
static inline int vitrine_kd_get_keyboard_mode(int fd, int *mode) {
    return ioctl(fd, KDGKBMODE, mode);
}

static inline int vitrine_kd_set_keyboard_mode(int fd, int mode) {
    return ioctl(fd, KDSKBMODE, mode);
}

/* Asks the kernel to switch to VT `number` (1-based); with VT_PROCESS the switch waits
   for the release signal's answer. */
static inline int vitrine_vt_activate(int fd, int number) {
    return ioctl(fd, VT_ACTIVATE, number);
}

static inline int vitrine_kd_keyboard_off(void) { return K_OFF; }
static inline int vitrine_kd_graphics(void) { return KD_GRAPHICS; }
static inline int vitrine_kd_text(void) { return KD_TEXT; }
static inline int vitrine_vt_process(void) { return VT_PROCESS; }
static inline int vitrine_vt_auto(void) { return VT_AUTO; }
static inline int vitrine_vt_ackacq(void) { return VT_ACKACQ; }

#endif
