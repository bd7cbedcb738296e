#ifndef VITRINE_CLINUXCEC_SHIM_H
#define VITRINE_CLINUXCEC_SHIM_H

/* The kernel's CEC API (linux/cec.h, Documentation/userspace-api/media/cec): its ioctl
   numbers are function-like macros and ioctl is variadic, neither of which Swift can
   call, so each ioctl the daemon uses is one inline function here. Each returns what
   ioctl returns: 0, or -1 with errno set. */

#include <linux/cec.h>
#include <sys/ioctl.h>

static inline int vitrine_cec_get_caps(int fd, struct cec_caps *caps) { return ioctl(fd, CEC_ADAP_G_CAPS, caps); }
static inline int vitrine_cec_get_phys_addr(int fd, __u16 *address) { return ioctl(fd, CEC_ADAP_G_PHYS_ADDR, address); }
static inline int vitrine_cec_get_log_addrs(int fd, struct cec_log_addrs *addrs) { return ioctl(fd, CEC_ADAP_G_LOG_ADDRS, addrs); }
static inline int vitrine_cec_set_log_addrs(int fd, struct cec_log_addrs *addrs) { return ioctl(fd, CEC_ADAP_S_LOG_ADDRS, addrs); }
static inline int vitrine_cec_set_mode(int fd, __u32 mode) { return ioctl(fd, CEC_S_MODE, &mode); }
static inline int vitrine_cec_transmit(int fd, struct cec_msg *message) { return ioctl(fd, CEC_TRANSMIT, message); }
static inline int vitrine_cec_receive(int fd, struct cec_msg *message) { return ioctl(fd, CEC_RECEIVE, message); }
static inline int vitrine_cec_dequeue_event(int fd, struct cec_event *event) { return ioctl(fd, CEC_DQEVENT, event); }
static inline int vitrine_cec_get_connector_info(int fd, struct cec_connector_info *info) {
#ifdef CEC_ADAP_G_CONNECTOR_INFO
    return ioctl(fd, CEC_ADAP_G_CONNECTOR_INFO, info);
#else
    (void)fd; (void)info; return -1;
#endif
}

#endif
