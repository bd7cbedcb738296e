#ifndef VITRINE_WLCS_H
#define VITRINE_WLCS_H

/* The WLCS integration module's C side: WLCS loads `wlcs_server_integration`, a table of
   function pointers, from the module; the entries call these functions of the Swift side
   (VitrineWLCS, `@_cdecl`), which run Vitrine's daemon. `server` is the Swift side's
   handle, made by vitrine_wlcs_create. Points are in the output's pixels. */

#include <stddef.h>
#include <stdint.h>

void *vitrine_wlcs_create(void);
void vitrine_wlcs_destroy(void *server);
void vitrine_wlcs_start(void *server);
void vitrine_wlcs_stop(void *server);
/* The client's end of a new connection, or -1. */
int vitrine_wlcs_client_socket(void *server);
/* Moves the window whose root surface is object `surface_id` of the client on `client_fd`
   (the descriptor vitrine_wlcs_client_socket gave) so that its top left is at (x, y). */
void vitrine_wlcs_position_window(void *server, int client_fd, uint32_t surface_id, int x, int y);
/* The pointer: 0 moves it to (x, y), 1 presses `button`, 2 releases it. */
void vitrine_wlcs_pointer(void *server, int action, double x, double y, int button);
/* Touch `id`: 0 down at (x, y), 1 moves to (x, y), 2 up. */
void vitrine_wlcs_touch(void *server, int id, int phase, double x, double y);
/* The protocols the server offers: how many, and the name and version of one. */
size_t vitrine_wlcs_protocol_count(void *server);
const char *vitrine_wlcs_protocol(void *server, size_t index, uint32_t *version);

#endif
