/* input-probe: libinput and xkbcommon in the DRM test's input guest, without vitrined
 * (docs/DRM-TEST.md). Proves what the daemon's input will stand on: that libinput finds the
 * uinput devices udev tagged, reads their touches and keys, sees them come and go, and that
 * xkeyboard-config's data in the guest compiles a keymap that types through it.
 *
 *   input-probe [--seat SEAT | --path DEVICE…] [--layout L] [--variant V] [--options O]
 *               [--screen WxH] [--seconds N]
 *
 * --seat (default seat0) uses libinput's udev backend (devices plugged in later are added),
 * --path its path backend on the given /dev/input/event* nodes. Runs until SIGTERM or N
 * seconds (default 60; 0 dispatches once: the devices added, then the end). Prints one line per event, flushed, with the CLOCK_MONOTONIC time
 * it was read (NOW) and the event's own kernel time (T, from the device), both in seconds:
 *
 *   PROBE keymap LAYOUT(VARIANT) compiled: N keys, M layouts, T ms
 *   PROBE NOW ready (udev backend|path backend)
 *   PROBE NOW added SYSNAME "NAME" caps=touch,keyboard,pointer size=WxHmm
 *   PROBE NOW removed SYSNAME "NAME"
 *   PROBE NOW touch down|motion T slot=S seat_slot=N x=X y=Y   (X Y: screen pixels, --screen)
 *   PROBE NOW touch up|cancel T slot=S seat_slot=N
 *   PROBE NOW touch frame T
 *   PROBE NOW key T CODE pressed|released sym=NAME text="UTF-8"   (text for presses only)
 *   PROBE NOW end
 *   PROBE-LOG libinput: message                 (libinput's own log, info and up)
 *   PROBE-FAIL what                             (then exit 1)
 *
 *   cc -O2 input-probe.c $(pkg-config --cflags --libs libinput libudev xkbcommon)
 */
#include <errno.h>
#include <fcntl.h>
#include <libinput.h>
#include <libudev.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xkbcommon/xkbcommon.h>

static volatile sig_atomic_t stop;
static struct xkb_state *xkb;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("PROBE-FAIL ");
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout);
    va_end(ap);
    exit(1);
}

static int open_restricted(const char *path, int flags, void *data)
{
    (void)data;
    int fd = open(path, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static void close_restricted(int fd, void *data)
{
    (void)data;
    close(fd);
}

static const struct libinput_interface interface = { open_restricted, close_restricted };

static void log_handler(struct libinput *li, enum libinput_log_priority p, const char *fmt, va_list args)
{
    (void)li;
    (void)p;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, args);
    msg[strcspn(msg, "\n")] = 0;
    printf("PROBE-LOG libinput: %s\n", msg);
    fflush(stdout);
}

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static void device_line(const char *what, struct libinput_device *d)
{
    char caps[64] = "";
    static const struct { enum libinput_device_capability cap; const char *name; } names[] = {
        { LIBINPUT_DEVICE_CAP_TOUCH, "touch" }, { LIBINPUT_DEVICE_CAP_KEYBOARD, "keyboard" },
        { LIBINPUT_DEVICE_CAP_POINTER, "pointer" }, { LIBINPUT_DEVICE_CAP_TABLET_TOOL, "tablet" },
        { LIBINPUT_DEVICE_CAP_GESTURE, "gesture" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (libinput_device_has_capability(d, names[i].cap))
            snprintf(caps + strlen(caps), sizeof caps - strlen(caps), "%s%s", *caps ? "," : "", names[i].name);
    double w = 0, h = 0;
    libinput_device_get_size(d, &w, &h);
    printf("PROBE %.6f %s %s \"%s\" caps=%s size=%.0fx%.0fmm\n", now(), what, libinput_device_get_sysname(d),
           libinput_device_get_name(d), *caps ? caps : "none", w, h);
}

int main(int argc, char **argv)
{
    const char *seat = "seat0", *layout = "us", *variant = "", *options = "";
    int width = 1280, height = 800, seconds = 60, path = 0;
    char **devices = NULL;
    int ndevices = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--seat") && v) seat = argv[++i];
        else if (!strcmp(a, "--layout") && v) layout = argv[++i];
        else if (!strcmp(a, "--variant") && v) variant = argv[++i];
        else if (!strcmp(a, "--options") && v) options = argv[++i];
        else if (!strcmp(a, "--seconds") && v) seconds = atoi(argv[++i]);
        else if (!strcmp(a, "--screen") && v) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2) fail("--screen WxH");
        } else if (!strcmp(a, "--path")) {
            path = 1;
            devices = argv + i + 1;
            ndevices = argc - i - 1;
            break;
        } else {
            fprintf(stderr, "usage: input-probe [--seat SEAT | --path DEVICE…] [--layout L] [--variant V] "
                            "[--options O] [--screen WxH] [--seconds N]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    struct xkb_context *ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    if (!ctx)
        fail("xkb_context_new");
    struct xkb_rule_names rmlvo = { "evdev", "pc105", layout, variant, options };
    double t0 = now();
    struct xkb_keymap *keymap = xkb_keymap_new_from_names(ctx, &rmlvo, XKB_KEYMAP_COMPILE_NO_FLAGS);
    if (!keymap)
        fail("keymap %s(%s) does not compile (xkeyboard-config in %s?)", layout, variant, "/usr/share/X11/xkb");
    int nkeys = 0;
    for (xkb_keycode_t k = xkb_keymap_min_keycode(keymap); k <= xkb_keymap_max_keycode(keymap); k++)
        nkeys += xkb_keymap_key_get_name(keymap, k) != NULL;
    printf("PROBE keymap %s(%s) compiled: %d keys, %u layouts, %.0f ms\n", layout, variant, nkeys,
           xkb_keymap_num_layouts(keymap), (now() - t0) * 1000);
    xkb = xkb_state_new(keymap);

    struct udev *udev = NULL;
    struct libinput *li;
    if (path) {
        li = libinput_path_create_context(&interface, NULL);
        if (!li)
            fail("libinput_path_create_context");
    } else {
        udev = udev_new();
        li = udev ? libinput_udev_create_context(&interface, NULL, udev) : NULL;
        if (!li)
            fail("libinput_udev_create_context");
    }
    libinput_log_set_handler(li, log_handler);
    libinput_log_set_priority(li, LIBINPUT_LOG_PRIORITY_INFO);
    if (path) {
        for (int i = 0; i < ndevices; i++)
            if (!libinput_path_add_device(li, devices[i]))
                fail("libinput_path_add_device %s (not tagged by udev? no /run/udev/data?)", devices[i]);
    } else if (libinput_udev_assign_seat(li, seat) != 0) {
        fail("libinput_udev_assign_seat %s", seat);
    }

    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    struct pollfd pfd = { libinput_get_fd(li), POLLIN, 0 };
    double end = now() + seconds;
    printf("PROBE %.6f ready (%s)\n", now(), path ? "path backend" : "udev backend");
    do { /* at least once: --seconds 0 reports the devices and ends */
        double left = end - now();
        int r = poll(&pfd, 1, left <= 0 ? 0 : left < 0.2 ? (int)(left * 1000) : 200);
        if (r < 0 && errno != EINTR)
            fail("poll: %s", strerror(errno));
        if (libinput_dispatch(li) != 0)
            fail("libinput_dispatch");
        double read_at = now();
        struct libinput_event *e;
        while ((e = libinput_get_event(li))) {
            enum libinput_event_type type = libinput_event_get_type(e);
            struct libinput_device *d = libinput_event_get_device(e);
            switch (type) {
            case LIBINPUT_EVENT_DEVICE_ADDED:
                device_line("added", d);
                break;
            case LIBINPUT_EVENT_DEVICE_REMOVED:
                printf("PROBE %.6f removed %s \"%s\"\n", read_at, libinput_device_get_sysname(d), libinput_device_get_name(d));
                break;
            case LIBINPUT_EVENT_TOUCH_DOWN:
            case LIBINPUT_EVENT_TOUCH_MOTION:
            case LIBINPUT_EVENT_TOUCH_UP:
            case LIBINPUT_EVENT_TOUCH_CANCEL:
            case LIBINPUT_EVENT_TOUCH_FRAME: {
                struct libinput_event_touch *t = libinput_event_get_touch_event(e);
                static const char *names[] = { "down", "up", "motion", "cancel", "frame" };
                const char *name = names[type - LIBINPUT_EVENT_TOUCH_DOWN];
                double time = libinput_event_touch_get_time_usec(t) / 1e6;
                if (type == LIBINPUT_EVENT_TOUCH_FRAME) {
                    printf("PROBE %.6f touch frame %.6f\n", read_at, time);
                } else if (type == LIBINPUT_EVENT_TOUCH_DOWN || type == LIBINPUT_EVENT_TOUCH_MOTION) {
                    printf("PROBE %.6f touch %s %.6f slot=%d seat_slot=%d x=%.2f y=%.2f\n", read_at, name, time,
                           libinput_event_touch_get_slot(t), libinput_event_touch_get_seat_slot(t),
                           libinput_event_touch_get_x_transformed(t, width), libinput_event_touch_get_y_transformed(t, height));
                } else {
                    printf("PROBE %.6f touch %s %.6f slot=%d seat_slot=%d\n", read_at, name, time,
                           libinput_event_touch_get_slot(t), libinput_event_touch_get_seat_slot(t));
                }
                break;
            }
            case LIBINPUT_EVENT_KEYBOARD_KEY: {
                struct libinput_event_keyboard *k = libinput_event_get_keyboard_event(e);
                uint32_t code = libinput_event_keyboard_get_key(k);
                int pressed = libinput_event_keyboard_get_key_state(k) == LIBINPUT_KEY_STATE_PRESSED;
                xkb_keycode_t kc = code + 8; /* evdev to xkb */
                char sym[64] = "", text[64] = "";
                xkb_keysym_get_name(xkb_state_key_get_one_sym(xkb, kc), sym, sizeof sym);
                if (pressed)
                    xkb_state_key_get_utf8(xkb, kc, text, sizeof text);
                xkb_state_update_key(xkb, kc, pressed ? XKB_KEY_DOWN : XKB_KEY_UP);
                printf("PROBE %.6f key %.6f %u %s sym=%s text=\"%s\"\n", read_at,
                       libinput_event_keyboard_get_time_usec(k) / 1e6, code, pressed ? "pressed" : "released", sym, text);
                break;
            }
            default:
                printf("PROBE %.6f event %d\n", read_at, type);
                break;
            }
            libinput_event_destroy(e);
        }
    } while (!stop && now() < end);
    libinput_unref(li);
    if (udev)
        udev_unref(udev);
    xkb_state_unref(xkb);
    xkb_keymap_unref(keymap);
    xkb_context_unref(ctx);
    printf("PROBE %.6f end\n", now());
    return 0;
}
