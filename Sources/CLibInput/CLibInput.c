#include "CLibInput.h"

#include <CLazyLibrary.h>
#include <CUDev.h>

static struct vitrine_lazy_library libinput = {"libinput.so.10", "libinput10", 0};

static void *symbol(const char *name) { return vitrine_lazy_symbol(&libinput, name); }

__attribute__((visibility("hidden"))) const char *vitrine_libinput_load(void) {
    const char *failure = vitrine_udev_load();
    return failure ? failure : vitrine_lazy_load(&libinput);
}

/* The functions the package calls (return type, name, parameters, arguments). */
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(symbol, type, name, parameters, arguments)
#define P(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(symbol, name, parameters, arguments)

F(int, libinput_device_config_calibration_get_default_matrix, (struct libinput_device *device, float *matrix), (device, matrix))
F(int, libinput_device_config_calibration_has_matrix, (struct libinput_device *device), (device))
F(enum libinput_config_status, libinput_device_config_calibration_set_matrix, (struct libinput_device *device, const float *matrix), (device, matrix))
F(const char *, libinput_device_get_name, (struct libinput_device *device), (device))
F(const char *, libinput_device_get_sysname, (struct libinput_device *device), (device))
F(int, libinput_device_has_capability, (struct libinput_device *device, enum libinput_device_capability capability), (device, capability))
F(int, libinput_dispatch, (struct libinput *libinput), (libinput))
P(libinput_event_destroy, (struct libinput_event *event), (event))
F(struct libinput_device *, libinput_event_get_device, (struct libinput_event *event), (event))
F(struct libinput_event_keyboard *, libinput_event_get_keyboard_event, (struct libinput_event *event), (event))
F(struct libinput_event_pointer *, libinput_event_get_pointer_event, (struct libinput_event *event), (event))
F(struct libinput_event_touch *, libinput_event_get_touch_event, (struct libinput_event *event), (event))
F(enum libinput_event_type, libinput_event_get_type, (struct libinput_event *event), (event))
F(uint32_t, libinput_event_keyboard_get_key, (struct libinput_event_keyboard *event), (event))
F(enum libinput_key_state, libinput_event_keyboard_get_key_state, (struct libinput_event_keyboard *event), (event))
F(uint64_t, libinput_event_keyboard_get_time_usec, (struct libinput_event_keyboard *event), (event))
F(double, libinput_event_pointer_get_absolute_x_transformed, (struct libinput_event_pointer *event, uint32_t width), (event, width))
F(double, libinput_event_pointer_get_absolute_y_transformed, (struct libinput_event_pointer *event, uint32_t height), (event, height))
F(uint32_t, libinput_event_pointer_get_button, (struct libinput_event_pointer *event), (event))
F(enum libinput_button_state, libinput_event_pointer_get_button_state, (struct libinput_event_pointer *event), (event))
F(double, libinput_event_pointer_get_dx, (struct libinput_event_pointer *event), (event))
F(double, libinput_event_pointer_get_dy, (struct libinput_event_pointer *event), (event))
F(double, libinput_event_pointer_get_scroll_value, (struct libinput_event_pointer *event, enum libinput_pointer_axis axis), (event, axis))
F(uint64_t, libinput_event_pointer_get_time_usec, (struct libinput_event_pointer *event), (event))
F(int, libinput_event_pointer_has_axis, (struct libinput_event_pointer *event, enum libinput_pointer_axis axis), (event, axis))
F(int32_t, libinput_event_touch_get_seat_slot, (struct libinput_event_touch *event), (event))
F(uint64_t, libinput_event_touch_get_time_usec, (struct libinput_event_touch *event), (event))
F(double, libinput_event_touch_get_x_transformed, (struct libinput_event_touch *event, uint32_t width), (event, width))
F(double, libinput_event_touch_get_y_transformed, (struct libinput_event_touch *event, uint32_t height), (event, height))
F(struct libinput_event *, libinput_get_event, (struct libinput *libinput), (libinput))
F(int, libinput_get_fd, (struct libinput *libinput), (libinput))
F(void *, libinput_get_user_data, (struct libinput *libinput), (libinput))
P(libinput_log_set_handler, (struct libinput *libinput, libinput_log_handler log_handler), (libinput, log_handler))
P(libinput_log_set_priority, (struct libinput *libinput, enum libinput_log_priority priority), (libinput, priority))
F(int, libinput_resume, (struct libinput *libinput), (libinput))
P(libinput_suspend, (struct libinput *libinput), (libinput))
F(int, libinput_udev_assign_seat, (struct libinput *libinput, const char *seat_id), (libinput, seat_id))
F(struct libinput *, libinput_udev_create_context, (const struct libinput_interface *interface, void *user_data, struct udev *udev), (interface, user_data, udev))
F(struct libinput *, libinput_unref, (struct libinput *libinput), (libinput))
