#ifndef VITRINE_CSYSTEMDID_SHIM_H
#define VITRINE_CSYSTEMDID_SHIM_H

/* libsystemd's sd-id128 (libsystemd-dev's header): the machine id as one application may
   show it. Not linked: bound when the identification screen first asks (CLazyLibrary). */

#include <systemd/sd-id128.h>

/* Opens libsystemd: NULL, or why it cannot be ("libsystemd.so.0 (Debian: libsystemd0): ..."). */
const char *vitrine_systemd_id_load(void);

#endif
