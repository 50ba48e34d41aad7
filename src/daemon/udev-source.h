/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where a UdevInfo comes from: a real sd_device, or a fake tree for tests (--sysfs-root
 * ROOT: sysfs under ROOT/sys, udev's database under ROOT/run/udev/data, files named
 * c<major>:<minor> with E:KEY=VALUE lines as udevd writes them; docs/colord-behaviour.md). */
#pragma once

#include <systemd/sd-device.h>

#include "udev-match.h"

/* 0, or a negative errno (the device vanished meanwhile, or -ENOMEM). */
int udev_info_from_device(sd_device *d, UdevInfo *ret);

/* The device whose udev database file is ROOT/run/udev/data/<db_name>. Its syspath is
 * reported as the kernel would name it (without ROOT). -ENOENT when the file or the
 * device's sysfs directory is missing; -EINVAL for a name that is not c<major>:<minor>. */
int udev_info_from_db_file(const char *root, const char *db_name, UdevInfo *ret);
