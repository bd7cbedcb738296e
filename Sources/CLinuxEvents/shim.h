#ifndef VITRINE_CLINUXEVENTS_SHIM_H
#define VITRINE_CLINUXEVENTS_SHIM_H

/* The Linux event interfaces the daemon's event loop is built on, which Swift's Glibc
   module leaves out: epoll, eventfd, timerfd, signalfd, inotify, accept4 (a GNU
   extension), the timer slack prctl (variadic, which Swift cannot call), and adjtimex (the
   clock sync the time daemon reports). */

#include <malloc.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/timex.h>

extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/* Accepts a connection on `fd` as a non-blocking, close-on-exec descriptor; -1 with
   errno set when there is none. */
static inline int vitrine_accept_nonblocking(int fd) {
    return accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/* Sets the calling thread's timer slack: how late the kernel may end its sleeps to
   coalesce wake-ups. */
static inline int vitrine_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

/* Makes every allocation of `bytes` or more its own mapping, returned to the system when
   freed: glibc otherwise raises the threshold after the first such block is freed, and
   later ones stay in its heaps. */
static inline int vitrine_fix_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

#endif
