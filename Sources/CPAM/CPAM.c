#include "CPAM.h"

#include <CLazyLibrary.h>
#include <stdlib.h>
#include <string.h>

static struct vitrine_lazy_library pam = {.soname = "libpam.so.0", .package = "libpam0g"};

__attribute__((visibility("hidden"))) const char *vitrine_pam_load(void) { return vitrine_lazy_load(&pam); }

static void *pam_symbol(const char *name) { return vitrine_lazy_symbol(&pam, name); }

#define P(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(pam_symbol, type, name, parameters, arguments)

P(int, pam_start, (const char *service_name, const char *user, const struct pam_conv *pam_conversation, pam_handle_t **pamh),
  (service_name, user, pam_conversation, pamh))
P(int, pam_end, (pam_handle_t * pamh, int pam_status), (pamh, pam_status))
P(int, pam_authenticate, (pam_handle_t * pamh, int flags), (pamh, flags))
P(int, pam_acct_mgmt, (pam_handle_t * pamh, int flags), (pamh, flags))
P(int, pam_set_item, (pam_handle_t * pamh, int item_type, const void *item), (pamh, item_type, item))
P(const char *, pam_strerror, (pam_handle_t * pamh, int errnum), (pamh, errnum))

/* Answers password prompts with the password; other prompts get no text. */
static int converse(int count, const struct pam_message **messages, struct pam_response **responses, void *password) {
    struct pam_response *answers = calloc((size_t)count, sizeof(struct pam_response));
    if (!answers) return PAM_BUF_ERR;
    for (int i = 0; i < count; i++) {
        if (messages[i]->msg_style == PAM_PROMPT_ECHO_OFF || messages[i]->msg_style == PAM_PROMPT_ECHO_ON) {
            answers[i].resp = strdup(password);
            if (!answers[i].resp) {
                for (int j = 0; j < i; j++) free(answers[j].resp);
                free(answers);
                return PAM_BUF_ERR;
            }
        }
    }
    *responses = answers;
    return PAM_SUCCESS;
}

static void no_delay(int status, unsigned int delay, void *context) {
    (void)status;
    (void)delay;
    (void)context;
}

__attribute__((visibility("hidden"))) int vitrine_pam_check(const char *service, const char *user, const char *password, const char **message) {
    struct pam_conv conversation = {.conv = converse, .appdata_ptr = (void *)password};
    pam_handle_t *handle = NULL;
    int status = pam_start(service, user, &conversation, &handle);
    if (status == PAM_SUCCESS) {
        void (*delay)(int, unsigned int, void *) = no_delay;
        pam_set_item(handle, PAM_FAIL_DELAY, (const void *)delay);
        status = pam_authenticate(handle, PAM_SILENT | PAM_DISALLOW_NULL_AUTHTOK);
    }
    if (status == PAM_SUCCESS) status = pam_acct_mgmt(handle, PAM_SILENT | PAM_DISALLOW_NULL_AUTHTOK);
    if (message) *message = pam_strerror(handle, status);
    if (handle) pam_end(handle, status);
    return status;
}
