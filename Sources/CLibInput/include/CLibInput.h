#ifndef VITRINE_CLIBINPUT_SHIM_H
#define VITRINE_CLIBINPUT_SHIM_H

/* libinput (on its udev backend) and libudev, for VitrineInput's devices. Not linked:
   bound when first used (CLazyLibrary); libudev's functions are CUDev's. */

#include <stdarg.h>
#include <stdio.h>
#include <libinput.h>
#include <libudev.h>

/* libinput logs printf-style with a va_list, which Swift can neither receive nor format:
   the handler formats the message and hands the text to VitrineInput, which implements
   vitrine_libinput_log_message (@_cdecl). */
extern void vitrine_libinput_log_message(struct libinput *libinput, int priority, const char *message);

static inline void vitrine_libinput_log_handler(struct libinput *libinput, enum libinput_log_priority priority,
                                                const char *format, va_list args) {
    char message[1024];
    vsnprintf(message, sizeof message, format, args);
    vitrine_libinput_log_message(libinput, (int)priority, message);
}

/* Routes `libinput`'s log to vitrine_libinput_log_message. */
static inline void vitrine_libinput_route_log(struct libinput *libinput) {
    libinput_log_set_handler(libinput, vitrine_libinput_log_handler);
}

/* Opens libudev and libinput: NULL, or why one cannot be ("libinput.so.10 (Debian:
   libinput10): ..."). */
const char *vitrine_libinput_load(void);

#endif
