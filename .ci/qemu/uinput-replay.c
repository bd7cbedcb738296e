/* uinput-replay: virtual input devices for the DRM test's input guest (docs/DRM-TEST.md).
 * Creates a multitouch touchscreen and a keyboard through /dev/uinput and replays a script
 * of commands, one per line, from the arguments or, without any, from standard input as the
 * lines come (a FIFO lets a shell script interleave its own work). Every frame written is
 * reported on standard output with the CLOCK_MONOTONIC time taken right before its write(2)
 * (the kernel stamps the events with that clock while the write runs; libinput's times are
 * the kernel's), so that the host can measure latencies:
 *
 *   REPLAY <seconds> <command>
 *
 * Commands:
 *   create touch|keyboard [NAME]   a device; reports "created touch inputN /dev/input/eventM"
 *   destroy touch|keyboard         removes it (also while touches are down: "vanished")
 *   touch down SLOT X Y            a new contact in SLOT (0-9) at device coordinates X Y
 *   touch move SLOT X Y            moves it
 *   touch up SLOT                  lifts it
 *   touch tap SLOT X Y [MS]        down, MS (default 50) milliseconds, up
 *   touch drag SLOT X1 Y1 X2 Y2 STEPS MS   down, STEPS moves MS apart, up
 *   key CODE 1|0|2                 press, release, repeat; CODE a number or a name (KEY_Y)
 *   key CODE                       press, then release
 *   sleep MS
 *   mark TEXT                      reports "mark TEXT" (to synchronize with a script)
 * Touch commands joined with ';' on one line make one frame (several fingers at once).
 * Coordinates are not checked: "touch down 0 99999 99999" sends what the range forbids.
 * Lines that are empty or start with '#' are skipped.
 *
 *   uinput-replay [--touch-max XMAX,YMAX] [--touch-res UNITS_PER_MM] [--uinput PATH] [CMD…]
 *   uinput-replay --stamp     prefixes each line of stdin with its CLOCK_MONOTONIC arrival
 *
 * Exit status: 0 at the end of the script (the devices are destroyed), 1 when a device
 * cannot be created or written, 2 for a command it does not understand.
 *
 *   cc -O2 -static uinput-replay.c -o uinput-replay
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 10

static const char *uinput_path = "/dev/uinput";
static int touch_max_x = 4095, touch_max_y = 4095, touch_res = 16;
static int line_no;

static struct {
    int fd;
    char sysname[64], node[300];
    int active[SLOTS], x[SLOTS], y[SLOTS];
    int next_tracking_id, down; /* contacts down */
} touch = { .fd = -1 };

static struct {
    int fd;
    char sysname[64], node[300];
} keyboard = { .fd = -1 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(double t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("REPLAY %.6f ", t);
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout);
    va_end(ap);
}

static void die(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("REPLAY-ERROR line %d: ", line_no);
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout);
    va_end(ap);
    exit(status);
}

static void sleep_ms(double ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6) };
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {}
}

/* ------------------------------------------------------------------ key names */

#define K(n) { #n, n }
static const struct { const char *name; int code; } keys[] = {
    K(KEY_ESC), K(KEY_1), K(KEY_2), K(KEY_3), K(KEY_4), K(KEY_5), K(KEY_6), K(KEY_7), K(KEY_8),
    K(KEY_9), K(KEY_0), K(KEY_MINUS), K(KEY_EQUAL), K(KEY_BACKSPACE), K(KEY_TAB), K(KEY_Q),
    K(KEY_W), K(KEY_E), K(KEY_R), K(KEY_T), K(KEY_Y), K(KEY_U), K(KEY_I), K(KEY_O), K(KEY_P),
    K(KEY_LEFTBRACE), K(KEY_RIGHTBRACE), K(KEY_ENTER), K(KEY_LEFTCTRL), K(KEY_A), K(KEY_S),
    K(KEY_D), K(KEY_F), K(KEY_G), K(KEY_H), K(KEY_J), K(KEY_K), K(KEY_L), K(KEY_SEMICOLON),
    K(KEY_APOSTROPHE), K(KEY_GRAVE), K(KEY_LEFTSHIFT), K(KEY_BACKSLASH), K(KEY_Z), K(KEY_X),
    K(KEY_C), K(KEY_V), K(KEY_B), K(KEY_N), K(KEY_M), K(KEY_COMMA), K(KEY_DOT), K(KEY_SLASH),
    K(KEY_RIGHTSHIFT), K(KEY_KPASTERISK), K(KEY_LEFTALT), K(KEY_SPACE), K(KEY_CAPSLOCK),
    K(KEY_F1), K(KEY_F2), K(KEY_F3), K(KEY_F4), K(KEY_F5), K(KEY_F6), K(KEY_F7), K(KEY_F8),
    K(KEY_F9), K(KEY_F10), K(KEY_F11), K(KEY_F12), K(KEY_102ND), K(KEY_RIGHTCTRL),
    K(KEY_RIGHTALT), K(KEY_HOME), K(KEY_UP), K(KEY_PAGEUP), K(KEY_LEFT), K(KEY_RIGHT),
    K(KEY_END), K(KEY_DOWN), K(KEY_PAGEDOWN), K(KEY_INSERT), K(KEY_DELETE), K(KEY_LEFTMETA),
    K(KEY_RIGHTMETA), K(KEY_COMPOSE),
};

static int key_code(const char *s)
{
    char *end;
    long v = strtol(s, &end, 0);
    if (*s && !*end)
        return v > 0 && v < KEY_MAX ? (int)v : -1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcasecmp(s, keys[i].name) || !strcasecmp(s, keys[i].name + 4))
            return keys[i].code;
    return -1;
}

/* ------------------------------------------------------------------ devices */

static void xioctl(int fd, unsigned long req, long arg, const char *what)
{
    if (ioctl(fd, req, arg) < 0)
        die(1, "%s: %s", what, strerror(errno));
}

static void abs_setup(int fd, int code, int min, int max, int res)
{
    struct uinput_abs_setup a = { .code = code, .absinfo = { .minimum = min, .maximum = max, .resolution = res } };
    if (ioctl(fd, UI_ABS_SETUP, &a) < 0)
        die(1, "UI_ABS_SETUP %d: %s", code, strerror(errno));
}

/* The device's sysfs name (inputN) and its evdev node (/dev/input/eventM, "-" without evdev). */
static void names(int fd, char *sysname, size_t sn, char *node, size_t nn)
{
    snprintf(sysname, sn, "-");
    snprintf(node, nn, "-");
    char buf[64];
    if (ioctl(fd, UI_GET_SYSNAME(sizeof buf), buf) < 0)
        return;
    snprintf(sysname, sn, "%s", buf);
    char dir[128];
    snprintf(dir, sizeof dir, "/sys/devices/virtual/input/%s", buf);
    for (int tries = 0; tries < 100; tries++) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (!strncmp(e->d_name, "event", 5)) {
                snprintf(node, nn, "/dev/input/%s", e->d_name);
                closedir(d);
                return;
            }
        if (d)
            closedir(d);
        sleep_ms(10);
    }
}

static int open_uinput(void)
{
    int fd = open(uinput_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        die(1, "%s: %s", uinput_path, strerror(errno));
    return fd;
}

static void create_touch(const char *name)
{
    if (touch.fd >= 0)
        die(2, "the touchscreen exists already");
    int fd = open_uinput();
    xioctl(fd, UI_SET_EVBIT, EV_SYN, "UI_SET_EVBIT EV_SYN");
    xioctl(fd, UI_SET_EVBIT, EV_KEY, "UI_SET_EVBIT EV_KEY");
    xioctl(fd, UI_SET_KEYBIT, BTN_TOUCH, "UI_SET_KEYBIT BTN_TOUCH");
    xioctl(fd, UI_SET_EVBIT, EV_ABS, "UI_SET_EVBIT EV_ABS");
    xioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT, "UI_SET_PROPBIT INPUT_PROP_DIRECT");
    int codes[] = { ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_TRACKING_ID, ABS_MT_POSITION_X, ABS_MT_POSITION_Y };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        xioctl(fd, UI_SET_ABSBIT, codes[i], "UI_SET_ABSBIT");
    abs_setup(fd, ABS_X, 0, touch_max_x, touch_res);
    abs_setup(fd, ABS_Y, 0, touch_max_y, touch_res);
    abs_setup(fd, ABS_MT_POSITION_X, 0, touch_max_x, touch_res);
    abs_setup(fd, ABS_MT_POSITION_Y, 0, touch_max_y, touch_res);
    abs_setup(fd, ABS_MT_SLOT, 0, SLOTS - 1, 0);
    abs_setup(fd, ABS_MT_TRACKING_ID, 0, 65535, 0);
    struct uinput_setup s = { .id = { .bustype = BUS_VIRTUAL, .vendor = 0x5654, .product = 1, .version = 1 } };
    snprintf(s.name, sizeof s.name, "%s", name ? name : "Vitrine test touchscreen");
    if (ioctl(fd, UI_DEV_SETUP, &s) < 0 || ioctl(fd, UI_DEV_CREATE) < 0)
        die(1, "creating the touchscreen: %s", strerror(errno));
    double t = now();
    memset(&touch, 0, sizeof touch);
    touch.fd = fd;
    names(fd, touch.sysname, sizeof touch.sysname, touch.node, sizeof touch.node);
    report(t, "created touch %s %s", touch.sysname, touch.node);
}

static void create_keyboard(const char *name)
{
    if (keyboard.fd >= 0)
        die(2, "the keyboard exists already");
    int fd = open_uinput();
    xioctl(fd, UI_SET_EVBIT, EV_SYN, "UI_SET_EVBIT EV_SYN");
    xioctl(fd, UI_SET_EVBIT, EV_KEY, "UI_SET_EVBIT EV_KEY");
    xioctl(fd, UI_SET_EVBIT, EV_REP, "UI_SET_EVBIT EV_REP");
    /* KEY_ESC … KEY_MICMUTE: a full keyboard to udev's input_id (it wants all of 1…31). */
    for (int k = KEY_ESC; k <= KEY_MICMUTE; k++)
        xioctl(fd, UI_SET_KEYBIT, k, "UI_SET_KEYBIT");
    struct uinput_setup s = { .id = { .bustype = BUS_VIRTUAL, .vendor = 0x5654, .product = 2, .version = 1 } };
    snprintf(s.name, sizeof s.name, "%s", name ? name : "Vitrine test keyboard");
    if (ioctl(fd, UI_DEV_SETUP, &s) < 0 || ioctl(fd, UI_DEV_CREATE) < 0)
        die(1, "creating the keyboard: %s", strerror(errno));
    double t = now();
    keyboard.fd = fd;
    names(fd, keyboard.sysname, sizeof keyboard.sysname, keyboard.node, sizeof keyboard.node);
    report(t, "created keyboard %s %s", keyboard.sysname, keyboard.node);
}

static void destroy(const char *what)
{
    int *fd = !strcmp(what, "touch") ? &touch.fd : !strcmp(what, "keyboard") ? &keyboard.fd : NULL;
    if (!fd)
        die(2, "destroy touch|keyboard, not '%s'", what);
    if (*fd < 0)
        die(2, "no %s to destroy", what);
    int down = fd == &touch.fd ? touch.down : 0;
    double t = now();
    ioctl(*fd, UI_DEV_DESTROY);
    close(*fd);
    *fd = -1;
    if (down)
        report(t, "destroyed %s (vanished with %d contact%s down)", what, down, down == 1 ? "" : "s");
    else
        report(t, "destroyed %s", what);
}

/* ------------------------------------------------------------------ frames */

static struct input_event frame[64];
static int nframe;

static void put(int type, int code, int value)
{
    if (nframe == (int)(sizeof frame / sizeof frame[0]))
        die(2, "too many events in one frame");
    frame[nframe++] = (struct input_event){ .type = type, .code = code, .value = value };
}

/* Writes the frame with SYN_REPORT in one write(2); returns the time right before it. */
static double flush(int fd)
{
    put(EV_SYN, SYN_REPORT, 0);
    double t = now();
    ssize_t n = write(fd, frame, nframe * sizeof frame[0]);
    if (n != (ssize_t)(nframe * sizeof frame[0]))
        die(1, "write to %s: %s", uinput_path, n < 0 ? strerror(errno) : "short write");
    nframe = 0;
    return t;
}

static int number(const char *s, const char *what)
{
    char *end;
    if (!s)
        die(2, "%s missing", what);
    long v = strtol(s, &end, 0);
    if (!*s || *end)
        die(2, "%s: '%s' is not a number", what, s);
    return (int)v;
}

/* One touch command (after "touch"), into the frame being built. */
static void touch_event(char **arg, int n)
{
    if (n < 2)
        die(2, "touch down|move|up SLOT …");
    int slot = number(arg[1], "slot");
    if (slot < 0 || slot >= SLOTS)
        die(2, "slot %d outside 0…%d", slot, SLOTS - 1);
    if (!strcmp(arg[0], "down") || !strcmp(arg[0], "move")) {
        int down = arg[0][0] == 'd';
        if (n != 4)
            die(2, "touch %s SLOT X Y", arg[0]);
        if (down == touch.active[slot])
            die(2, "slot %d is %s", slot, down ? "down already" : "not down");
        put(EV_ABS, ABS_MT_SLOT, slot);
        if (down) {
            put(EV_ABS, ABS_MT_TRACKING_ID, touch.next_tracking_id);
            touch.next_tracking_id = (touch.next_tracking_id + 1) & 0xffff;
            touch.active[slot] = 1;
            touch.down++;
        }
        touch.x[slot] = number(arg[2], "x");
        touch.y[slot] = number(arg[3], "y");
        put(EV_ABS, ABS_MT_POSITION_X, touch.x[slot]);
        put(EV_ABS, ABS_MT_POSITION_Y, touch.y[slot]);
    } else if (!strcmp(arg[0], "up")) {
        if (n != 2)
            die(2, "touch up SLOT");
        if (!touch.active[slot])
            die(2, "slot %d is not down", slot);
        put(EV_ABS, ABS_MT_SLOT, slot);
        put(EV_ABS, ABS_MT_TRACKING_ID, -1);
        touch.active[slot] = 0;
        touch.down--;
    } else {
        die(2, "touch down|move|up|tap|drag, not '%s'", arg[0]);
    }
}

/* Ends a touch frame: BTN_TOUCH when the first contact lands or the last lifts, and the
 * single-touch axes following the lowest slot down (the kernel's pointer emulation). */
static double touch_flush(int was_down)
{
    if (!was_down != !touch.down)
        put(EV_KEY, BTN_TOUCH, touch.down > 0);
    for (int s = 0; s < SLOTS; s++)
        if (touch.active[s]) {
            put(EV_ABS, ABS_X, touch.x[s]);
            put(EV_ABS, ABS_Y, touch.y[s]);
            break;
        }
    return flush(touch.fd);
}

static int split(char *s, char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(s, " \t"); tok && n < max; tok = strtok(NULL, " \t"))
        out[n++] = tok;
    return n;
}

static void need_touch(void)
{
    if (touch.fd < 0)
        die(2, "no touchscreen (create touch first)");
}

static void command(char *line)
{
    line[strcspn(line, "\r\n")] = 0;
    while (*line == ' ' || *line == '\t')
        line++;
    if (!*line || *line == '#')
        return;
    char text[512];
    snprintf(text, sizeof text, "%s", line);
    char *arg[16] = { 0 };
    if (!strncmp(line, "mark", 4) && (line[4] == ' ' || !line[4])) {
        report(now(), "%s", text);
        return;
    }
    if (!strncmp(line, "touch ", 6) && strchr(line, ';')) {
        need_touch();
        int was_down = touch.down;
        char *saveptr = NULL;
        char copy[512];
        snprintf(copy, sizeof copy, "%s", text);
        for (char *part = strtok_r(copy, ";", &saveptr); part; part = strtok_r(NULL, ";", &saveptr)) {
            char *p = part;
            while (*p == ' ' || *p == '\t')
                p++;
            if (!strncmp(p, "touch ", 6))
                p += 6;
            char buf[256];
            snprintf(buf, sizeof buf, "%s", p);
            int n = split(buf, arg, 16);
            touch_event(arg, n);
        }
        report(touch_flush(was_down), "%s", text);
        return;
    }
    int n = split(line, arg, 16);
    if (n == 0)
        return;
    if (!strcmp(arg[0], "sleep") && n == 2) {
        sleep_ms(number(arg[1], "milliseconds"));
    } else if (!strcmp(arg[0], "create") && n >= 2) {
        const char *name = n > 2 ? strstr(text, arg[2]) : NULL;
        if (!strcmp(arg[1], "touch"))
            create_touch(name);
        else if (!strcmp(arg[1], "keyboard"))
            create_keyboard(name);
        else
            die(2, "create touch|keyboard, not '%s'", arg[1]);
    } else if (!strcmp(arg[0], "destroy") && n == 2) {
        destroy(arg[1]);
    } else if (!strcmp(arg[0], "touch") && n >= 2 && !strcmp(arg[1], "tap")) {
        if (n != 5 && n != 6)
            die(2, "touch tap SLOT X Y [MS]");
        need_touch();
        char s[32], x[32], y[32];
        snprintf(s, sizeof s, "%s", arg[2]);
        snprintf(x, sizeof x, "%s", arg[3]);
        snprintf(y, sizeof y, "%s", arg[4]);
        int ms = n == 6 ? number(arg[5], "milliseconds") : 50;
        char *down[] = { "down", s, x, y }, *up[] = { "up", s };
        touch_event(down, 4);
        report(touch_flush(touch.down - 1), "touch down %s %s %s", s, x, y);
        sleep_ms(ms);
        touch_event(up, 2);
        report(touch_flush(touch.down + 1), "touch up %s", s);
    } else if (!strcmp(arg[0], "touch") && n >= 2 && !strcmp(arg[1], "drag")) {
        if (n != 9)
            die(2, "touch drag SLOT X1 Y1 X2 Y2 STEPS MS");
        need_touch();
        int x1 = number(arg[3], "x1"), y1 = number(arg[4], "y1"), x2 = number(arg[5], "x2"), y2 = number(arg[6], "y2");
        int steps = number(arg[7], "steps"), ms = number(arg[8], "milliseconds");
        char s[32], x[32], y[32];
        snprintf(s, sizeof s, "%s", arg[2]);
        for (int i = 0; i <= steps + 1; i++) {
            int last = i == steps + 1;
            int k = i > steps ? steps : i;
            snprintf(x, sizeof x, "%d", steps ? x1 + (x2 - x1) * k / steps : x2);
            snprintf(y, sizeof y, "%d", steps ? y1 + (y2 - y1) * k / steps : y2);
            char *down[] = { i == 0 ? "down" : "move", s, x, y }, *up[] = { "up", s };
            int was = touch.down;
            touch_event(last ? up : down, last ? 2 : 4);
            double t = touch_flush(was);
            if (last)
                report(t, "touch up %s", s);
            else
                report(t, "touch %s %s %s %s", down[0], s, x, y);
            if (!last && i < steps)
                sleep_ms(ms);
        }
    } else if (!strcmp(arg[0], "touch")) {
        need_touch();
        int was_down = touch.down;
        touch_event(arg + 1, n - 1);
        report(touch_flush(was_down), "%s", text);
    } else if (!strcmp(arg[0], "key") && (n == 2 || n == 3)) {
        if (keyboard.fd < 0)
            die(2, "no keyboard (create keyboard first)");
        int code = key_code(arg[1]);
        if (code < 0)
            die(2, "unknown key '%s'", arg[1]);
        if (n == 3) {
            int v = number(arg[2], "value");
            put(EV_KEY, code, v);
            report(flush(keyboard.fd), "key %d %d", code, v);
        } else {
            put(EV_KEY, code, 1);
            report(flush(keyboard.fd), "key %d 1", code);
            put(EV_KEY, code, 0);
            report(flush(keyboard.fd), "key %d 0", code);
        }
    } else {
        die(2, "unknown command '%s'", text);
    }
}

static int stamp(void)
{
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        double t = now();
        printf("%.6f %s", t, line);
        if (!strchr(line, '\n'))
            putchar('\n');
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int i = 1;
    for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
        if (!strcmp(argv[i], "--stamp"))
            return stamp();
        if (!strcmp(argv[i], "--touch-max") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d", &touch_max_x, &touch_max_y) != 2 || touch_max_x < 1 || touch_max_y < 1)
                die(2, "--touch-max XMAX,YMAX");
        } else if (!strcmp(argv[i], "--touch-res") && i + 1 < argc) {
            touch_res = number(argv[++i], "--touch-res");
        } else if (!strcmp(argv[i], "--uinput") && i + 1 < argc) {
            uinput_path = argv[++i];
        } else {
            fprintf(stderr, "usage: uinput-replay [--touch-max XMAX,YMAX] [--touch-res N] [--uinput PATH] [COMMAND…]\n"
                            "       uinput-replay --stamp\n");
            return 2;
        }
    }
    if (i < argc) {
        for (; i < argc; i++) {
            line_no++;
            char buf[512];
            snprintf(buf, sizeof buf, "%s", argv[i]);
            command(buf);
        }
    } else {
        char buf[512];
        while (fgets(buf, sizeof buf, stdin)) {
            line_no++;
            command(buf);
        }
    }
    if (touch.fd >= 0)
        destroy("touch");
    if (keyboard.fd >= 0)
        destroy("keyboard");
    return 0;
}
