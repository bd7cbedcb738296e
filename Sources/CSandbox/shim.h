#ifndef VITRINE_CSANDBOX_SHIM_H
#define VITRINE_CSANDBOX_SHIM_H

/* What a helper process that parses untrusted files is confined with, and how it hands
   its results back, where Swift's Glibc module leaves the interfaces out: sealed memfds,
   descriptor passing (SCM_RIGHTS), resource limits, and a seccomp system-call filter
   (a classic BPF program, whose macros and system-call numbers only C sees). */

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif

/* A close-on-exec memfd that may be sealed; -1 with errno set. */
static inline int vitrine_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

/* Changes the effective user of the calling thread alone (the system call: glibc's
   setresuid changes every thread's); -1 stands for "unchanged". 0 on success. */
static inline int vitrine_thread_set_users(long real, long effective, long saved) {
    return (int)syscall(SYS_setresuid, real, effective, saved);
}

/* The seals a reader needs before it trusts a memfd's size and contents: it can neither
   shrink, grow nor be written any more. */
static inline int vitrine_reader_seals(void) { return F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE; }

/* Seals `fd` for readers (and against further sealing); -1 with errno set (EBUSY while a
   writable shared mapping of it exists). */
static inline int vitrine_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}

/* The seals a reader needs before it maps a memfd that its writer goes on filling (a ring
   of video frames): it can neither shrink nor grow, so that no mapping of it faults. */
static inline int vitrine_size_seals(void) { return F_SEAL_SHRINK | F_SEAL_GROW; }

/* Seals `fd`'s size (and against further sealing), leaving it writable; -1 with errno set. */
static inline int vitrine_seal_size(int fd) { return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL); }

/* The seals on `fd`; -1 with errno set (EINVAL: not a memfd that allows sealing). */
static inline int vitrine_seals(int fd) { return fcntl(fd, F_GET_SEALS); }

/* Sends `length` bytes and `count` descriptors (at most 8) as one message on `socket`;
   sendmsg's result. */
static inline ssize_t vitrine_send_with_descriptors(int socket, const void *bytes, size_t length, const int *descriptors, int count) {
    struct iovec part = {.iov_base = (void *)bytes, .iov_len = length};
    union {
        char space[CMSG_SPACE(8 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
    if (count < 0 || count > 8) { errno = EINVAL; return -1; }
    if (count > 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.space;
        message.msg_controllen = CMSG_SPACE(count * sizeof(int));
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(count * sizeof(int));
        memcpy(CMSG_DATA(header), descriptors, count * sizeof(int));
    }
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

/* Receives one message of at most `length` bytes and 8 descriptors (close-on-exec) from
   `socket`: its length (0 at the end), the descriptors in `descriptors` and their number
   in `*count`, and in `*truncated` whether bytes or descriptors were cut off (those cut
   off are closed by the kernel; those received are the caller's). -1 with errno set. */
static inline ssize_t vitrine_receive_with_descriptors(int socket, void *bytes, size_t length, int *descriptors, int *count, int *truncated) {
    struct iovec part = {.iov_base = bytes, .iov_len = length};
    union {
        char space[CMSG_SPACE(8 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    *count = 0;
    *truncated = 0;
    ssize_t received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (received < 0) return received;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int n = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
            if (*count < 8) descriptors[(*count)++] = fd; else close(fd);
        }
    }
    *truncated = (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
    return received;
}

/* Sets the soft and hard limit of `resource` (RLIMIT_DATA, RLIMIT_NOFILE, …). */
static inline int vitrine_set_limit(int resource, unsigned long long value) {
    struct rlimit limit = {.rlim_cur = value, .rlim_max = value};
    return setrlimit(resource, &limit);
}

#if defined(__x86_64__)
#define VITRINE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define VITRINE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define VITRINE_KILL_IF(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

/* What a confined helper may still do beyond decoding (vitrine_confine_decoder's `allow`). */
enum {
    /* Unix sockets: socket(2) and socketpair(2) of AF_UNIX, and connect(2) (a sound server). */
    VITRINE_ALLOW_UNIX_SOCKETS = 1 << 0,
    /* Sockets of any family, connect(2) (a network stream). */
    VITRINE_ALLOW_NETWORK = 1 << 1,
    /* ioctl(2) (a sound card). */
    VITRINE_ALLOW_DEVICE_CONTROL = 1 << 2,
};

/* Confines the calling process (every thread of it where seccomp(2) may be called, else
   the calling thread and those it starts), for good: it can no longer reach the
   network, run programs, trace or signal other processes, change namespaces, mounts or
   kernel modules, load BPF, or control devices (ioctl fails with ENOTTY), but for Unix
   socket pairs (GStreamer's wakeups) and what
   `allow` (VITRINE_ALLOW_*) leaves it; trying kills it (SIGSYS). `self` is its process
   id, the one `kill`/`tgkill` may still signal (abort). 0, or -1 with errno set. */
static inline int vitrine_confine_decoder(int self, int allow) {
#ifndef VITRINE_AUDIT_ARCH
    (void)self;
    (void)allow;
    errno = ENOSYS;
    return -1;
#else
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, VITRINE_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        /* the x32 ABI's numbers */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
        /* devices: no control */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, (allow & VITRINE_ALLOW_DEVICE_CONTROL) ? SECCOMP_RET_ALLOW : (SECCOMP_RET_ERRNO | ENOTTY)),
        /* signals: only to itself */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)self, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* socket pairs: Unix ones (which reach nothing outside), others with the network */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, (allow & VITRINE_ALLOW_NETWORK) ? SECCOMP_RET_ALLOW : SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* sockets: Unix ones with VITRINE_ALLOW_UNIX_SOCKETS, any with the network */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, (allow & VITRINE_ALLOW_NETWORK) ? SECCOMP_RET_ALLOW : SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, (allow & (VITRINE_ALLOW_UNIX_SOCKETS | VITRINE_ALLOW_NETWORK)) ? SECCOMP_RET_ALLOW : SECCOMP_RET_KILL_PROCESS),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_connect, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, (allow & (VITRINE_ALLOW_UNIX_SOCKETS | VITRINE_ALLOW_NETWORK)) ? SECCOMP_RET_ALLOW : SECCOMP_RET_KILL_PROCESS),
        VITRINE_KILL_IF(SYS_tkill),
        VITRINE_KILL_IF(SYS_rt_sigqueueinfo),
        VITRINE_KILL_IF(SYS_rt_tgsigqueueinfo),
        VITRINE_KILL_IF(SYS_pidfd_send_signal),
        /* the network */
        VITRINE_KILL_IF(SYS_bind),
        VITRINE_KILL_IF(SYS_listen),
        VITRINE_KILL_IF(SYS_accept),
        VITRINE_KILL_IF(SYS_accept4),
        /* other programs and processes */
        VITRINE_KILL_IF(SYS_execve),
        VITRINE_KILL_IF(SYS_execveat),
        VITRINE_KILL_IF(SYS_ptrace),
        VITRINE_KILL_IF(SYS_process_vm_readv),
        VITRINE_KILL_IF(SYS_process_vm_writev),
        VITRINE_KILL_IF(SYS_pidfd_open),
        VITRINE_KILL_IF(SYS_pidfd_getfd),
        VITRINE_KILL_IF(SYS_setpgid),
        VITRINE_KILL_IF(SYS_setsid),
        /* the system */
        VITRINE_KILL_IF(SYS_mount),
        VITRINE_KILL_IF(SYS_umount2),
        VITRINE_KILL_IF(SYS_pivot_root),
        VITRINE_KILL_IF(SYS_chroot),
        VITRINE_KILL_IF(SYS_unshare),
        VITRINE_KILL_IF(SYS_setns),
        VITRINE_KILL_IF(SYS_bpf),
        VITRINE_KILL_IF(SYS_perf_event_open),
        VITRINE_KILL_IF(SYS_init_module),
        VITRINE_KILL_IF(SYS_finit_module),
        VITRINE_KILL_IF(SYS_delete_module),
        VITRINE_KILL_IF(SYS_kexec_load),
        VITRINE_KILL_IF(SYS_keyctl),
        VITRINE_KILL_IF(SYS_add_key),
        VITRINE_KILL_IF(SYS_request_key),
        VITRINE_KILL_IF(SYS_userfaultfd),
        VITRINE_KILL_IF(SYS_io_uring_setup),
        VITRINE_KILL_IF(SYS_open_by_handle_at),
        VITRINE_KILL_IF(SYS_name_to_handle_at),
        VITRINE_KILL_IF(SYS_seccomp),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) == 0) return 0;
    /* A service's own filter may deny seccomp(2) (systemd's @system-service does): prctl
       installs the filter on the calling thread, and the threads it starts after. */
    if (errno != EPERM && errno != ENOSYS && errno != EACCES) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#endif
}

#endif
