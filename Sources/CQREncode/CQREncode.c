#include "CQREncode.h"

#include <CLazyLibrary.h>

static struct vitrine_lazy_library qrencode = {"libqrencode.so.4", "libqrencode4", 0};

static void *symbol(const char *name) { return vitrine_lazy_symbol(&qrencode, name); }

__attribute__((visibility("hidden"))) const char *vitrine_qrencode_load(void) { return vitrine_lazy_load(&qrencode); }

/* The functions the package calls (return type, name, parameters, arguments). */
VITRINE_LAZY_FUNCTION(symbol, QRcode *, QRcode_encodeString8bit, (const char *string, int version, QRecLevel level), (string, version, level))
VITRINE_LAZY_PROCEDURE(symbol, QRcode_free, (QRcode *qrcode), (qrcode))
