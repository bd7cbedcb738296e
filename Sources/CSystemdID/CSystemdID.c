#include "CSystemdID.h"

#include <CLazyLibrary.h>

static struct vitrine_lazy_library systemd = {"libsystemd.so.0", "libsystemd0", 0};

static void *symbol(const char *name) { return vitrine_lazy_symbol(&systemd, name); }

__attribute__((visibility("hidden"))) const char *vitrine_systemd_id_load(void) { return vitrine_lazy_load(&systemd); }

/* The functions the package calls (return type, name, parameters, arguments). */
VITRINE_LAZY_FUNCTION(symbol, int, sd_id128_get_machine_app_specific, (sd_id128_t app_id, sd_id128_t *ret), (app_id, ret))
