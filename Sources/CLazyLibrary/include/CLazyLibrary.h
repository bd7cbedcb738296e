#ifndef VITRINE_CLAZYLIBRARY_H
#define VITRINE_CLAZYLIBRARY_H

/* C libraries bound when a feature first uses them, not when the process starts: what
   isn't used isn't loaded. A module over such a library (CLibInput, CX11, CWaylandServer,
   ...) does not link it. Its .c defines each function the package calls as a trampoline
   with the header's own prototype (so the compiler checks it against the library's
   declaration), which on its first call finds the real function in the library, opened
   once with dlopen, and afterwards calls it straight away. The feature loads its
   libraries where it starts (the module's vitrine_*_load, through VitrineSystem's
   FeatureLibraries), so that a missing library is that feature's error; a call that still
   cannot be resolved (a library too old for a symbol) aborts, naming the library, the
   symbol and the package to install.

   Everything here is hidden: an executable linked with -export-dynamic (debug builds are)
   must not offer its trampolines to the libraries it loads, or libinput's own calls to
   libudev would bind to ours. */

struct vitrine_lazy_library {
    /* What dlopen opens: "libinput.so.10". */
    const char *soname;
    /* The Debian package that installs it: "libinput10". */
    const char *package;
    /* dlopen's handle once it is open (read and written atomically). */
    void *handle;
};

/* Opens `library` once (later calls return at once): NULL, or why it cannot be opened
   ("libinput.so.10 (Debian: libinput10): <dlerror>"), valid on this thread until its next call. */
__attribute__((visibility("hidden"))) const char *vitrine_lazy_load(struct vitrine_lazy_library *library);

/* Whether `library` is open. */
__attribute__((visibility("hidden"))) int vitrine_lazy_loaded(struct vitrine_lazy_library *library);

/* The address of `name` in `library` (a function or a variable), opening it first; when it
   cannot be found, one line on standard error says what to install, and the process aborts. */
__attribute__((visibility("hidden"))) void *vitrine_lazy_symbol(struct vitrine_lazy_library *library, const char *name);

/* Defines `type name parameters` to call the function `name` that `lookup(#name)` returns,
   looked up on the first call. One line per function:
       VITRINE_LAZY_FUNCTION(symbol, int, libinput_get_fd, (struct libinput *libinput), (libinput))
   VITRINE_LAZY_PROCEDURE is the same for a function that returns nothing. */
#define VITRINE_LAZY_FUNCTION(lookup, type, name, parameters, arguments)                                                \
    __attribute__((visibility("hidden"))) type name parameters {                                                         \
        static type(*resolved) parameters;                                                                               \
        type(*call) parameters = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);                                           \
        if (!call) {                                                                                                     \
            call = (type(*) parameters)lookup(#name);                                                                    \
            __atomic_store_n(&resolved, call, __ATOMIC_RELEASE);                                                         \
        }                                                                                                                \
        return call arguments;                                                                                           \
    }

#define VITRINE_LAZY_PROCEDURE(lookup, name, parameters, arguments)                                                     \
    __attribute__((visibility("hidden"))) void name parameters {                                                         \
        static void(*resolved) parameters;                                                                               \
        void(*call) parameters = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);                                           \
        if (!call) {                                                                                                     \
            call = (void(*) parameters)lookup(#name);                                                                    \
            __atomic_store_n(&resolved, call, __ATOMIC_RELEASE);                                                         \
        }                                                                                                                \
        call arguments;                                                                                                  \
    }

/* Defines `type *accessor(void)` returning the address of the variable `name` that
   `lookup` finds: a C global of the library, which no trampoline can stand for. */
#define VITRINE_LAZY_VARIABLE(lookup, type, accessor, name)                                                             \
    __attribute__((visibility("hidden"))) type *accessor(void) {                                                         \
        static type *resolved;                                                                                           \
        type *address = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);                                                   \
        if (!address) {                                                                                                  \
            address = (type *)lookup(#name);                                                                             \
            __atomic_store_n(&resolved, address, __ATOMIC_RELEASE);                                                      \
        }                                                                                                                \
        return address;                                                                                                  \
    }

#endif
