#ifndef VITRINE_CLINUXEVENTS_SHIM_H
#define VITRINE_CLINUXEVENTS_SHIM_H

/* The Linux event interfaces the daemon's event loop is built on, which Swift's Glibc
   module leaves out: epoll, eventfd, timerfd, signalfd, inotify, accept4 and pipe2 (GNU
   extensions), the timer slack prctl (variadic, which Swift cannot call), adjtimex (the
   clock sync the time daemon reports), pidfd_open (a system call glibc 2.36 does not wrap
   everywhere) and glibc's posix_spawn extensions for a child's descriptors and directory. */

#include <malloc.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>

extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
extern int pipe2(int fds[2], int flags);

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

/* A descriptor that becomes readable when process `pid` (a child not yet reaped) ends;
   -1 with errno set (ENOSYS before Linux 5.3). */
static inline int vitrine_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return (int)syscall(434, pid, 0);
#endif
}

/* glibc 2.34: the child closes every descriptor from `from` on before it runs the program. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
/* glibc 2.29: the child changes to `path` before it runs the program. */
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

#endif
