#include "CWaylandServer.h"

#include <CLazyLibrary.h>

__attribute__((visibility("hidden"))) void vitrine_wl_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message) {
    static void (*resolved)(struct wl_resource *, uint32_t, const char *, ...);
    void (*post)(struct wl_resource *, uint32_t, const char *, ...) = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);
    if (!post) {
        post = (void (*)(struct wl_resource *, uint32_t, const char *, ...))vitrine_wayland_server_symbol("wl_resource_post_error");
        __atomic_store_n(&resolved, post, __ATOMIC_RELEASE);
    }
    post(resource, code, "%s", message);
}

/* The functions the package calls (return type, name, parameters, arguments). */
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(vitrine_wayland_server_symbol, type, name, parameters, arguments)
#define P(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(vitrine_wayland_server_symbol, name, parameters, arguments)

P(wl_client_add_destroy_listener, (struct wl_client *client, struct wl_listener *listener), (client, listener))
F(struct wl_client *, wl_client_create, (struct wl_display *display, int fd), (display, fd))
P(wl_client_add_resource_created_listener, (struct wl_client *client, struct wl_listener *listener), (client, listener))
P(wl_client_destroy, (struct wl_client *client), (client))
P(wl_client_flush, (struct wl_client *client), (client))
P(wl_client_for_each_resource, (struct wl_client *client, wl_client_for_each_resource_iterator_func_t iterator, void *user_data), (client, iterator, user_data))
F(struct wl_client *, wl_client_from_link, (struct wl_list *link), (link))
P(wl_client_get_credentials, (struct wl_client *client, pid_t *pid, uid_t *uid, gid_t *gid), (client, pid, uid, gid))
F(int, wl_client_get_fd, (struct wl_client *client), (client))
F(struct wl_resource *, wl_client_get_object, (struct wl_client *client, uint32_t id), (client, id))
P(wl_client_post_no_memory, (struct wl_client *client), (client))
P(wl_display_add_client_created_listener, (struct wl_display *display, struct wl_listener *listener), (display, listener))
F(int, wl_display_add_socket_fd, (struct wl_display *display, int sock_fd), (display, sock_fd))
F(struct wl_display *, wl_display_create, (void), ())
P(wl_display_destroy, (struct wl_display *display), (display))
P(wl_display_destroy_clients, (struct wl_display *display), (display))
P(wl_display_set_global_filter, (struct wl_display *display, wl_display_global_filter_func_t filter, void *data), (display, filter, data))
P(wl_display_flush_clients, (struct wl_display *display), (display))
F(struct wl_list *, wl_display_get_client_list, (struct wl_display *display), (display))
F(struct wl_event_loop *, wl_display_get_event_loop, (struct wl_display *display), (display))
F(int, wl_display_init_shm, (struct wl_display *display), (display))
F(uint32_t, wl_display_next_serial, (struct wl_display *display), (display))
F(int, wl_event_loop_dispatch, (struct wl_event_loop *loop, int timeout), (loop, timeout))
F(int, wl_event_loop_get_fd, (struct wl_event_loop *loop), (loop))
F(struct wl_global *, wl_global_create, (struct wl_display *display, const struct wl_interface *interface, int version, void *data, wl_global_bind_func_t bind), (display, interface, version, data, bind))
P(wl_resource_add_destroy_listener, (struct wl_resource *resource, struct wl_listener *listener), (resource, listener))
F(struct wl_resource *, wl_resource_create, (struct wl_client *client, const struct wl_interface *interface, int version, uint32_t id), (client, interface, version, id))
P(wl_resource_destroy, (struct wl_resource *resource), (resource))
F(const char *, wl_resource_get_class, (struct wl_resource *resource), (resource))
F(struct wl_client *, wl_resource_get_client, (struct wl_resource *resource), (resource))
F(uint32_t, wl_resource_get_id, (struct wl_resource *resource), (resource))
F(void *, wl_resource_get_user_data, (struct wl_resource *resource), (resource))
F(int, wl_resource_get_version, (struct wl_resource *resource), (resource))
P(wl_resource_post_event_array, (struct wl_resource *resource, uint32_t opcode, union wl_argument *args), (resource, opcode, args))
P(wl_resource_set_dispatcher, (struct wl_resource *resource, wl_dispatcher_func_t dispatcher, const void *implementation, void *data, wl_resource_destroy_func_t destroy), (resource, dispatcher, implementation, data, destroy))
P(wl_shm_buffer_begin_access, (struct wl_shm_buffer *buffer), (buffer))
P(wl_shm_buffer_end_access, (struct wl_shm_buffer *buffer), (buffer))
F(struct wl_shm_buffer *, wl_shm_buffer_get, (struct wl_resource *resource), (resource))
F(void *, wl_shm_buffer_get_data, (struct wl_shm_buffer *buffer), (buffer))
F(uint32_t, wl_shm_buffer_get_format, (struct wl_shm_buffer *buffer), (buffer))
F(int32_t, wl_shm_buffer_get_height, (struct wl_shm_buffer *buffer), (buffer))
F(int32_t, wl_shm_buffer_get_stride, (struct wl_shm_buffer *buffer), (buffer))
F(int32_t, wl_shm_buffer_get_width, (struct wl_shm_buffer *buffer), (buffer))
F(struct wl_shm_pool *, wl_shm_buffer_ref_pool, (struct wl_shm_buffer *buffer), (buffer))
P(wl_shm_pool_unref, (struct wl_shm_pool *pool), (pool))
