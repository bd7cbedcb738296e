#include "CUDev.h"

#include <CLazyLibrary.h>

static struct vitrine_lazy_library udev = {"libudev.so.1", "libudev1", 0};

static void *symbol(const char *name) { return vitrine_lazy_symbol(&udev, name); }

__attribute__((visibility("hidden"))) const char *vitrine_udev_load(void) { return vitrine_lazy_load(&udev); }

/* The functions the package calls (return type, name, parameters, arguments). */
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(symbol, type, name, parameters, arguments)

F(const char *, udev_device_get_action, (struct udev_device *udev_device), (udev_device))
F(dev_t, udev_device_get_devnum, (struct udev_device *udev_device), (udev_device))
F(const char *, udev_device_get_devtype, (struct udev_device *udev_device), (udev_device))
F(struct udev_list_entry *, udev_device_get_properties_list_entry, (struct udev_device *udev_device), (udev_device))
F(const char *, udev_device_get_subsystem, (struct udev_device *udev_device), (udev_device))
F(const char *, udev_device_get_sysname, (struct udev_device *udev_device), (udev_device))
F(struct udev_device *, udev_device_unref, (struct udev_device *udev_device), (udev_device))
F(const char *, udev_list_entry_get_name, (struct udev_list_entry *list_entry), (list_entry))
F(struct udev_list_entry *, udev_list_entry_get_next, (struct udev_list_entry *list_entry), (list_entry))
F(const char *, udev_list_entry_get_value, (struct udev_list_entry *list_entry), (list_entry))
F(int, udev_monitor_enable_receiving, (struct udev_monitor *udev_monitor), (udev_monitor))
F(int, udev_monitor_filter_add_match_subsystem_devtype, (struct udev_monitor *udev_monitor, const char *subsystem, const char *devtype), (udev_monitor, subsystem, devtype))
F(int, udev_monitor_get_fd, (struct udev_monitor *udev_monitor), (udev_monitor))
F(struct udev_monitor *, udev_monitor_new_from_netlink, (struct udev *udev, const char *name), (udev, name))
F(struct udev_device *, udev_monitor_receive_device, (struct udev_monitor *udev_monitor), (udev_monitor))
F(struct udev_monitor *, udev_monitor_unref, (struct udev_monitor *udev_monitor), (udev_monitor))
F(struct udev *, udev_new, (void), ())
F(struct udev *, udev_unref, (struct udev *udev), (udev))
