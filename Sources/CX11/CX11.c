#include "CX11.h"

#include <CLazyLibrary.h>
#include <CXKBCommon.h>

static struct vitrine_lazy_library xcb = {"libxcb.so.1", "libxcb1", 0};
static struct vitrine_lazy_library xcb_shm = {"libxcb-shm.so.0", "libxcb-shm0", 0};
static struct vitrine_lazy_library xkbcommon_x11 = {"libxkbcommon-x11.so.0", "libxkbcommon-x11-0", 0};
static struct vitrine_lazy_library xcb_composite = {"libxcb-composite.so.0", "libxcb-composite0", 0};
static struct vitrine_lazy_library xcb_res = {"libxcb-res.so.0", "libxcb-res0", 0};

static void *xcb_symbol(const char *name) { return vitrine_lazy_symbol(&xcb, name); }
static void *shm_symbol(const char *name) { return vitrine_lazy_symbol(&xcb_shm, name); }
static void *x11_keymap_symbol(const char *name) { return vitrine_lazy_symbol(&xkbcommon_x11, name); }
static void *composite_symbol(const char *name) { return vitrine_lazy_symbol(&xcb_composite, name); }
static void *res_symbol(const char *name) { return vitrine_lazy_symbol(&xcb_res, name); }

__attribute__((visibility("hidden"))) const char *vitrine_x11_load(void) {
    struct vitrine_lazy_library *libraries[] = {&xcb, &xcb_shm, &xkbcommon_x11};
    for (unsigned i = 0; i < sizeof libraries / sizeof *libraries; i++) {
        const char *failure = vitrine_lazy_load(libraries[i]);
        if (failure) return failure;
    }
    return vitrine_xkbcommon_load();
}

__attribute__((visibility("hidden"))) const char *vitrine_x11_wm_load(void) {
    struct vitrine_lazy_library *libraries[] = {&xcb, &xcb_composite, &xcb_res};
    for (unsigned i = 0; i < sizeof libraries / sizeof *libraries; i++) {
        const char *failure = vitrine_lazy_load(libraries[i]);
        if (failure) return failure;
    }
    return NULL;
}

VITRINE_LAZY_VARIABLE(shm_symbol, xcb_extension_t, vitrine_xcb_shm_id, xcb_shm_id)
VITRINE_LAZY_VARIABLE(composite_symbol, xcb_extension_t, vitrine_xcb_composite_id, xcb_composite_id)
VITRINE_LAZY_VARIABLE(res_symbol, xcb_extension_t, vitrine_xcb_res_id, xcb_res_id)

/* The functions the package calls (return type, name, parameters, arguments), by library. */
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(xcb_symbol, type, name, parameters, arguments)
#define P(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(xcb_symbol, name, parameters, arguments)

F(xcb_void_cookie_t, xcb_change_window_attributes, (xcb_connection_t *c, xcb_window_t window, uint32_t value_mask, const void *value_list), (c, window, value_mask, value_list))
F(xcb_void_cookie_t, xcb_configure_window, (xcb_connection_t *c, xcb_window_t window, uint16_t value_mask, const void *value_list), (c, window, value_mask, value_list))
F(xcb_connection_t *, xcb_connect_to_fd, (int fd, xcb_auth_info_t *auth_info), (fd, auth_info))
F(xcb_get_input_focus_cookie_t, xcb_get_input_focus, (xcb_connection_t *c), (c))
F(xcb_void_cookie_t, xcb_kill_client, (xcb_connection_t *c, uint32_t resource), (c, resource))
F(int, xcb_poll_for_reply, (xcb_connection_t *c, unsigned int request, void **reply, xcb_generic_error_t **error), (c, request, reply, error))
P(xcb_prefetch_extension_data, (xcb_connection_t *c, xcb_extension_t *ext), (c, ext))
F(xcb_void_cookie_t, xcb_set_input_focus, (xcb_connection_t *c, uint8_t revert_to, xcb_window_t focus, xcb_timestamp_t time), (c, revert_to, focus, time))
F(xcb_void_cookie_t, xcb_set_selection_owner, (xcb_connection_t *c, xcb_window_t owner, xcb_atom_t selection, xcb_timestamp_t time), (c, owner, selection, time))
F(xcb_void_cookie_t, xcb_change_property, (xcb_connection_t *c, uint8_t mode, xcb_window_t window, xcb_atom_t property, xcb_atom_t type, uint8_t format, uint32_t data_len, const void *data), (c, mode, window, property, type, format, data_len, data))
F(xcb_connection_t *, xcb_connect, (const char *displayname, int *screenp), (displayname, screenp))
F(int, xcb_connection_has_error, (xcb_connection_t *c), (c))
F(xcb_void_cookie_t, xcb_change_gc, (xcb_connection_t *c, xcb_gcontext_t gc, uint32_t value_mask, const void *value_list), (c, gc, value_mask, value_list))
F(xcb_void_cookie_t, xcb_create_gc, (xcb_connection_t *c, xcb_gcontext_t cid, xcb_drawable_t drawable, uint32_t value_mask, const void *value_list), (c, cid, drawable, value_mask, value_list))
F(xcb_void_cookie_t, xcb_create_window, (xcb_connection_t *c, uint8_t depth, xcb_window_t wid, xcb_window_t parent, int16_t x, int16_t y, uint16_t width, uint16_t height, uint16_t border_width, uint16_t _class, xcb_visualid_t visual, uint32_t value_mask, const void *value_list), (c, depth, wid, parent, x, y, width, height, border_width, _class, visual, value_mask, value_list))
P(xcb_depth_next, (xcb_depth_iterator_t *i), (i))
F(xcb_visualtype_iterator_t, xcb_depth_visuals_iterator, (const xcb_depth_t *R), (R))
F(xcb_void_cookie_t, xcb_destroy_window, (xcb_connection_t *c, xcb_window_t window), (c, window))
P(xcb_disconnect, (xcb_connection_t *c), (c))
F(int, xcb_flush, (xcb_connection_t *c), (c))
P(xcb_format_next, (xcb_format_iterator_t *i), (i))
F(xcb_void_cookie_t, xcb_free_gc, (xcb_connection_t *c, xcb_gcontext_t gc), (c, gc))
F(uint32_t, xcb_generate_id, (xcb_connection_t *c), (c))
F(const struct xcb_query_extension_reply_t *, xcb_get_extension_data, (xcb_connection_t *c, xcb_extension_t *ext), (c, ext))
F(int, xcb_get_file_descriptor, (xcb_connection_t *c), (c))
F(xcb_get_geometry_cookie_t, xcb_get_geometry, (xcb_connection_t *c, xcb_drawable_t drawable), (c, drawable))
F(xcb_get_geometry_reply_t *, xcb_get_geometry_reply, (xcb_connection_t *c, xcb_get_geometry_cookie_t cookie, xcb_generic_error_t **e), (c, cookie, e))
F(xcb_get_image_cookie_t, xcb_get_image, (xcb_connection_t *c, uint8_t format, xcb_drawable_t drawable, int16_t x, int16_t y, uint16_t width, uint16_t height, uint32_t plane_mask), (c, format, drawable, x, y, width, height, plane_mask))
F(uint8_t *, xcb_get_image_data, (const xcb_get_image_reply_t *R), (R))
F(int, xcb_get_image_data_length, (const xcb_get_image_reply_t *R), (R))
F(xcb_get_image_reply_t *, xcb_get_image_reply, (xcb_connection_t *c, xcb_get_image_cookie_t cookie, xcb_generic_error_t **e), (c, cookie, e))
F(uint32_t, xcb_get_maximum_request_length, (xcb_connection_t *c), (c))
F(xcb_get_property_cookie_t, xcb_get_property, (xcb_connection_t *c, uint8_t _delete, xcb_window_t window, xcb_atom_t property, xcb_atom_t type, uint32_t long_offset, uint32_t long_length), (c, _delete, window, property, type, long_offset, long_length))
F(xcb_get_property_reply_t *, xcb_get_property_reply, (xcb_connection_t *c, xcb_get_property_cookie_t cookie, xcb_generic_error_t **e), (c, cookie, e))
F(void *, xcb_get_property_value, (const xcb_get_property_reply_t *R), (R))
F(int, xcb_get_property_value_length, (const xcb_get_property_reply_t *R), (R))
F(const struct xcb_setup_t *, xcb_get_setup, (xcb_connection_t *c), (c))
F(xcb_get_window_attributes_cookie_t, xcb_get_window_attributes, (xcb_connection_t *c, xcb_window_t window), (c, window))
F(xcb_get_window_attributes_reply_t *, xcb_get_window_attributes_reply, (xcb_connection_t *c, xcb_get_window_attributes_cookie_t cookie, xcb_generic_error_t **e), (c, cookie, e))
F(xcb_intern_atom_cookie_t, xcb_intern_atom, (xcb_connection_t *c, uint8_t only_if_exists, uint16_t name_len, const char *name), (c, only_if_exists, name_len, name))
F(xcb_intern_atom_reply_t *, xcb_intern_atom_reply, (xcb_connection_t *c, xcb_intern_atom_cookie_t cookie, xcb_generic_error_t **e), (c, cookie, e))
F(xcb_void_cookie_t, xcb_map_window, (xcb_connection_t *c, xcb_window_t window), (c, window))
F(xcb_void_cookie_t, xcb_poly_fill_rectangle, (xcb_connection_t *c, xcb_drawable_t drawable, xcb_gcontext_t gc, uint32_t rectangles_len, const xcb_rectangle_t *rectangles), (c, drawable, gc, rectangles_len, rectangles))
F(xcb_void_cookie_t, xcb_unmap_window, (xcb_connection_t *c, xcb_window_t window), (c, window))
F(xcb_generic_event_t *, xcb_poll_for_event, (xcb_connection_t *c), (c))
F(xcb_generic_event_t *, xcb_poll_for_queued_event, (xcb_connection_t *c), (c))
F(xcb_void_cookie_t, xcb_put_image, (xcb_connection_t *c, uint8_t format, xcb_drawable_t drawable, xcb_gcontext_t gc, uint16_t width, uint16_t height, int16_t dst_x, int16_t dst_y, uint8_t left_pad, uint8_t depth, uint32_t data_len, const uint8_t *data), (c, format, drawable, gc, width, height, dst_x, dst_y, left_pad, depth, data_len, data))
F(xcb_query_tree_cookie_t, xcb_query_tree, (xcb_connection_t *c, xcb_window_t window), (c, window))
F(xcb_window_t *, xcb_query_tree_children, (const xcb_query_tree_reply_t *R), (R))
F(int, xcb_query_tree_children_length, (const xcb_query_tree_reply_t *R), (R))
F(xcb_query_tree_reply_t *, xcb_query_tree_reply, (xcb_connection_t *c, xcb_query_tree_cookie_t cookie, xcb_generic_error_t **e), (c, cookie, e))
F(xcb_generic_error_t *, xcb_request_check, (xcb_connection_t *c, xcb_void_cookie_t cookie), (c, cookie))
F(xcb_depth_iterator_t, xcb_screen_allowed_depths_iterator, (const xcb_screen_t *R), (R))
P(xcb_screen_next, (xcb_screen_iterator_t *i), (i))
F(xcb_void_cookie_t, xcb_send_event, (xcb_connection_t *c, uint8_t propagate, xcb_window_t destination, uint32_t event_mask, const char *event), (c, propagate, destination, event_mask, event))
F(xcb_format_iterator_t, xcb_setup_pixmap_formats_iterator, (const xcb_setup_t *R), (R))
F(xcb_screen_iterator_t, xcb_setup_roots_iterator, (const xcb_setup_t *R), (R))
P(xcb_visualtype_next, (xcb_visualtype_iterator_t *i), (i))

#undef F
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(shm_symbol, type, name, parameters, arguments)

F(xcb_void_cookie_t, xcb_shm_attach, (xcb_connection_t *c, xcb_shm_seg_t shmseg, uint32_t shmid, uint8_t read_only), (c, shmseg, shmid, read_only))
F(xcb_void_cookie_t, xcb_shm_attach_checked, (xcb_connection_t *c, xcb_shm_seg_t shmseg, uint32_t shmid, uint8_t read_only), (c, shmseg, shmid, read_only))
F(xcb_void_cookie_t, xcb_shm_detach, (xcb_connection_t *c, xcb_shm_seg_t shmseg), (c, shmseg))
F(xcb_void_cookie_t, xcb_shm_put_image, (xcb_connection_t *c, xcb_drawable_t drawable, xcb_gcontext_t gc, uint16_t total_width, uint16_t total_height, uint16_t src_x, uint16_t src_y, uint16_t src_width, uint16_t src_height, int16_t dst_x, int16_t dst_y, uint8_t depth, uint8_t format, uint8_t send_event, xcb_shm_seg_t shmseg, uint32_t offset), (c, drawable, gc, total_width, total_height, src_x, src_y, src_width, src_height, dst_x, dst_y, depth, format, send_event, shmseg, offset))
F(xcb_shm_query_version_cookie_t, xcb_shm_query_version, (xcb_connection_t *c), (c))
F(xcb_shm_query_version_reply_t *, xcb_shm_query_version_reply, (xcb_connection_t *c, xcb_shm_query_version_cookie_t cookie, xcb_generic_error_t **e), (c, cookie, e))

#undef F
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(composite_symbol, type, name, parameters, arguments)

F(xcb_void_cookie_t, xcb_composite_redirect_subwindows, (xcb_connection_t *c, xcb_window_t window, uint8_t update), (c, window, update))

#undef F
#undef P
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(res_symbol, type, name, parameters, arguments)
#define P(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(res_symbol, name, parameters, arguments)

F(xcb_res_query_client_ids_cookie_t, xcb_res_query_client_ids, (xcb_connection_t *c, uint32_t num_specs, const xcb_res_client_id_spec_t *specs), (c, num_specs, specs))
F(xcb_res_client_id_value_iterator_t, xcb_res_query_client_ids_ids_iterator, (const xcb_res_query_client_ids_reply_t *R), (R))
F(uint32_t *, xcb_res_client_id_value_value, (const xcb_res_client_id_value_t *R), (R))
P(xcb_res_client_id_value_next, (xcb_res_client_id_value_iterator_t *i), (i))

#undef F
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(x11_keymap_symbol, type, name, parameters, arguments)

F(int32_t, xkb_x11_get_core_keyboard_device_id, (xcb_connection_t *connection), (connection))
F(struct xkb_keymap *, xkb_x11_keymap_new_from_device, (struct xkb_context *context, xcb_connection_t *connection, int32_t device_id, enum xkb_keymap_compile_flags flags), (context, connection, device_id, flags))
F(int, xkb_x11_setup_xkb_extension, (xcb_connection_t *connection, uint16_t major_xkb_version, uint16_t minor_xkb_version, enum xkb_x11_setup_xkb_extension_flags flags, uint16_t *major_xkb_version_out, uint16_t *minor_xkb_version_out, uint8_t *base_event_out, uint8_t *base_error_out), (connection, major_xkb_version, minor_xkb_version, flags, major_xkb_version_out, minor_xkb_version_out, base_event_out, base_error_out))
