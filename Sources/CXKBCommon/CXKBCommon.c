#include "CXKBCommon.h"

#include <CLazyLibrary.h>

static struct vitrine_lazy_library xkbcommon = {"libxkbcommon.so.0", "libxkbcommon0", 0};

static void *symbol(const char *name) { return vitrine_lazy_symbol(&xkbcommon, name); }

__attribute__((visibility("hidden"))) const char *vitrine_xkbcommon_load(void) { return vitrine_lazy_load(&xkbcommon); }

/* The functions the package calls (return type, name, parameters, arguments). */
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(symbol, type, name, parameters, arguments)
#define P(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(symbol, name, parameters, arguments)

F(struct xkb_context *, xkb_context_new, (enum xkb_context_flags flags), (flags))
P(xkb_context_set_log_level, (struct xkb_context *context, enum xkb_log_level level), (context, level))
P(xkb_context_unref, (struct xkb_context *context), (context))
F(char *, xkb_keymap_get_as_string, (struct xkb_keymap *keymap, enum xkb_keymap_format format), (keymap, format))
F(int, xkb_keymap_key_repeats, (struct xkb_keymap *keymap, xkb_keycode_t key), (keymap, key))
F(xkb_mod_index_t, xkb_keymap_mod_get_index, (struct xkb_keymap *keymap, const char *name), (keymap, name))
F(struct xkb_keymap *, xkb_keymap_new_from_names, (struct xkb_context *context, const struct xkb_rule_names *names, enum xkb_keymap_compile_flags flags), (context, names, flags))
F(struct xkb_keymap *, xkb_keymap_new_from_string, (struct xkb_context *context, const char *string, enum xkb_keymap_format format, enum xkb_keymap_compile_flags flags), (context, string, format, flags))
P(xkb_keymap_unref, (struct xkb_keymap *keymap), (keymap))
F(int, xkb_keysym_get_name, (xkb_keysym_t keysym, char *buffer, size_t size), (keysym, buffer, size))
F(xkb_keysym_t, xkb_state_key_get_one_sym, (struct xkb_state *state, xkb_keycode_t key), (state, key))
F(int, xkb_state_key_get_utf8, (struct xkb_state *state, xkb_keycode_t key, char *buffer, size_t size), (state, key, buffer, size))
F(int, xkb_state_mod_index_is_active, (struct xkb_state *state, xkb_mod_index_t idx, enum xkb_state_component type), (state, idx, type))
F(struct xkb_state *, xkb_state_new, (struct xkb_keymap *keymap), (keymap))
F(xkb_layout_index_t, xkb_state_serialize_layout, (struct xkb_state *state, enum xkb_state_component components), (state, components))
F(xkb_mod_mask_t, xkb_state_serialize_mods, (struct xkb_state *state, enum xkb_state_component components), (state, components))
P(xkb_state_unref, (struct xkb_state *state), (state))
F(enum xkb_state_component, xkb_state_update_key, (struct xkb_state *state, xkb_keycode_t key, enum xkb_key_direction direction), (state, key, direction))

/* What a keymap's keys show and type (VitrineInput's Keyboard+Symbols, for the screen keyboard). */
F(int, xkb_keymap_key_get_syms_by_level, (struct xkb_keymap *keymap, xkb_keycode_t key, xkb_layout_index_t layout, xkb_level_index_t level, const xkb_keysym_t **syms_out), (keymap, key, layout, level, syms_out))
F(xkb_level_index_t, xkb_keymap_num_levels_for_key, (struct xkb_keymap *keymap, xkb_keycode_t key, xkb_layout_index_t layout), (keymap, key, layout))
F(xkb_keycode_t, xkb_keymap_max_keycode, (struct xkb_keymap *keymap), (keymap))
F(int, xkb_keysym_to_utf8, (xkb_keysym_t keysym, char *buffer, size_t size), (keysym, buffer, size))
F(xkb_keysym_t, xkb_utf32_to_keysym, (uint32_t ucs), (ucs))
