/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure: what a SANE device record (name, vendor, model) becomes in tinct (colord §9.1,
 * docs/scanners.md): the id `sane-<model>` with SANE's model as it is, the Model property
 * with `_` as spaces, whether colord would skip it (vendor `Noname`: SANE's test and
 * virtual backends), which records are sane-airscan's network scanners, and the USB bus
 * address in a libusb device name (`plustek:libusb:004:002`) so that the daemon can tell a
 * scanner udev already gave a device. No I/O, no logging. */
#pragma once

#include <stdbool.h>

int sane_device_id(const char *model, char **ret);
/* `_` → space, trailing blanks dropped. */
int sane_model_name(const char *model, char **ret);
bool sane_vendor_is_test(const char *vendor);
/* airscan:e<N>:<name> (eSCL) → true and *ret_name points at <name>. WSD devices
 * (airscan:w<N>:…) are not eSCL and stay ordinary SANE devices. */
bool sane_name_is_airscan_escl(const char *name, const char **ret_name);
/* `<backend>:libusb:<bus>:<dev>` → true with the numbers (each 1..999). */
bool sane_usb_address(const char *name, unsigned *ret_bus, unsigned *ret_dev);
