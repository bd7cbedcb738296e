#ifndef VITRINE_CPAM_H
#define VITRINE_CPAM_H

/* PAM (libpam0g), for VitrineRemote's VNC listeners with auth = "pam": not linked, bound
   when first used (CLazyLibrary); vitrine_pam_load opens libpam when such a listener
   starts. The header is Debian's libpam0g-dev. */

#include <security/pam_appl.h>

/* Opens libpam once: NULL, or why it cannot be opened. */
const char *vitrine_pam_load(void);

/* Authenticates `user` with `password` through `service` (pam_authenticate, then
   pam_acct_mgmt), answering every password prompt with `password`, with PAM's delay after
   a failure turned off: PAM_SUCCESS, or PAM's error; `message` (may be NULL) gets
   pam_strerror's text for it. */
int vitrine_pam_check(const char *service, const char *user, const char *password, const char **message);

#endif
