#include "CLibSeat.h"

#include <CLazyLibrary.h>

static struct vitrine_lazy_library libseat = {"libseat.so.1", "libseat1", 0};

static void *symbol(const char *name) { return vitrine_lazy_symbol(&libseat, name); }

__attribute__((visibility("hidden"))) const char *vitrine_libseat_load(void) { return vitrine_lazy_load(&libseat); }

/* The functions the package calls (return type, name, parameters, arguments). */
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(symbol, type, name, parameters, arguments)

F(int, libseat_close_device, (struct libseat *seat, int device_id), (seat, device_id))
F(int, libseat_close_seat, (struct libseat *seat), (seat))
F(int, libseat_disable_seat, (struct libseat *seat), (seat))
F(int, libseat_dispatch, (struct libseat *seat, int timeout), (seat, timeout))
F(int, libseat_get_fd, (struct libseat *seat), (seat))
F(int, libseat_open_device, (struct libseat *seat, const char *path, int *fd), (seat, path, fd))
F(struct libseat *, libseat_open_seat, (const struct libseat_seat_listener *listener, void *userdata), (listener, userdata))
F(const char *, libseat_seat_name, (struct libseat *seat), (seat))
F(int, libseat_switch_session, (struct libseat *seat, int session), (seat, session))
