#include "CLazyLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

const char *vitrine_lazy_load(struct vitrine_lazy_library *library) {
    if (__atomic_load_n(&library->handle, __ATOMIC_ACQUIRE)) return NULL;
    /* RTLD_LOCAL: its symbols stay out of the global scope, where they could stand in for
       another library's; a second thread opening it too only counts one more reference. */
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (handle) {
        __atomic_store_n(&library->handle, handle, __ATOMIC_RELEASE);
        return NULL;
    }
    static _Thread_local char message[512];
    const char *reason = dlerror();
    snprintf(message, sizeof message, "%s (Debian: %s): %s", library->soname, library->package, reason ? reason : "cannot be opened");
    return message;
}

int vitrine_lazy_loaded(struct vitrine_lazy_library *library) { return __atomic_load_n(&library->handle, __ATOMIC_ACQUIRE) != NULL; }

void *vitrine_lazy_symbol(struct vitrine_lazy_library *library, const char *name) {
    const char *failure = vitrine_lazy_load(library);
    if (failure) {
        fprintf(stderr, "vitrine: cannot call %s: %s — install %s\n", name, failure, library->package);
        abort();
    }
    dlerror();
    void *address = dlsym(__atomic_load_n(&library->handle, __ATOMIC_ACQUIRE), name);
    if (!address) {
        const char *reason = dlerror();
        fprintf(stderr, "vitrine: %s has no %s (%s): install a newer %s\n", library->soname, name, reason ? reason : "not found", library->package);
        abort();
    }
    return address;
}
