/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of udev discovery (src/daemon/sources/udev/udev.c) on a fake tree (--sysfs-root ROOT):
 * sysfs under ROOT/sys, udev's database under ROOT/run/udev/data in udevd's own format. A
 * plug is what udevd does — the sysfs directory first, then the database file, written
 * under a dot name and renamed — and an unplug the reverse; the daemon's answers are
 * awaited as DeviceAdded/DeviceRemoved/SensorAdded/SensorRemoved signals.
 *
 * Covered: coldplug of a scanner, a USB hub with SANE's tag (no device), a gphoto2 camera
 * behind a fixed port (Embedded), a webcam (no device, as colord), a colorimeter and an
 * ignored ColorHug bootloader; hotplug and unplug of a scanner and of the colorimeter, whose
 * id is not reused; the sensor's properties, Lock/Unlock and readings.
 *
 * The instrument is a stand-in: this machine has no colorimeter, so a small shell script
 * named spotread (first on the daemon's PATH) plays ArgyllCMS's spotread, printing what
 * the real one prints (its port list, its prompt, " Result is XYZ: ...") and failing as the
 * real one fails when asked to. Without it on PATH, GetSample must say what to install.
 * Deliberately not here: the real sd-device monitor (needs real hardware). */

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bus-test.h"

#define SCANNER_SYS "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2"
#define SCANNER_ID "sysfs-Canon_Inc.-CanoScan_LiDE_220"
#define SCANNER2_SYS "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-4"
#define SCANNER2_ID "sysfs-Epson-Perfection_V39"
#define CAMERA_ID "sysfs-Nikon_Corp.-D3200"
#define METER_SYS "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-5"
#define METER_NODE "/dev/bus/usb/001/007"
#define METER_CHAR "189:6"
#define SENSOR0 CM_PATH "/sensors/i1_display3_00"
#define SENSOR1 CM_PATH "/sensors/i1_display3_01"

static char *root;

static void write_file(const char *path, const char *text) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_se(fd >= 0);
        assert_se(write(fd, text, strlen(text)) == (ssize_t) strlen(text));
}

static void mkdir_p(const char *path) {
        _cleanup_free_ char *p = strdup(path);
        for (char *s = p + 1; *s; s++)
                if (*s == '/') {
                        *s = 0;
                        assert_se(mkdir(p, 0755) == 0 || errno == EEXIST);
                        *s = '/';
                }
        assert_se(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void run(char *const argv[]) {
        pid_t pid = fork();
        assert_se(pid >= 0);
        if (pid == 0) {
                execvp(argv[0], argv);
                _exit(127);
        }
        int status;
        assert_se(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A USB device's sysfs directory: attributes "name=value", the subsystem link, uevent and
 * the /sys/dev/char link the kernel makes. */
static void make_sysfs(const char *syspath, const char *subsystem, const char *chr, const char *devname,
                       const char *const *attrs) {
        _cleanup_free_ char *dir = xasprintf("%s%s", root, syspath);
        mkdir_p(dir);
        for (const char *const *a = attrs; a && *a; a++) {
                const char *eq = strchr(*a, '=');
                _cleanup_free_ char *file = xasprintf("%s/%.*s", dir, (int) (eq - *a), *a);
                _cleanup_free_ char *value = xasprintf("%s\n", eq + 1);
                write_file(file, value);
        }
        _cleanup_free_ char *sub = xasprintf("%s/subsystem", dir), *target = xasprintf("../../../../../../bus/%s", subsystem);
        assert_se(symlink(target, sub) == 0);
        _cleanup_free_ char *uevent = xasprintf("%s/uevent", dir), *ue = xasprintf("DEVTYPE=usb_device\nDEVNAME=%s\n", devname);
        write_file(uevent, ue);
        _cleanup_free_ char *link = xasprintf("%s/sys/dev/char/%s", root, chr), *to = xasprintf("../../..%s", syspath);
        assert_se(symlink(to, link) == 0);
}

static void remove_sysfs(const char *syspath, const char *chr) {
        _cleanup_free_ char *dir = xasprintf("%s%s", root, syspath), *link = xasprintf("%s/sys/dev/char/%s", root, chr);
        assert_se(unlink(link) == 0);
        char *argv[] = { (char *) "rm", (char *) "-rf", dir, NULL };
        run(argv);
}

/* udevd's way: a temporary dot file, renamed into place. */
static void write_db(const char *chr, const char *const *props) {
        _cleanup_free_ char *tmp = xasprintf("%s/run/udev/data/.#c%s", root, chr);
        _cleanup_free_ char *db = xasprintf("%s/run/udev/data/c%s", root, chr);
        FILE *f = fopen(tmp, "we");
        assert_se(f);
        fprintf(f, "I:1234567\nG:seat\n");
        for (const char *const *p = props; *p; p++)
                fprintf(f, "E:%s\n", *p);
        fprintf(f, "Q:5\nV:1\n");
        assert_se(fclose(f) == 0);
        assert_se(rename(tmp, db) == 0);
}

static void remove_db(const char *chr) {
        _cleanup_free_ char *db = xasprintf("%s/run/udev/data/c%s", root, chr);
        assert_se(unlink(db) == 0);
}

static void plug_meter(void) {
        make_sysfs(METER_SYS, "usb", METER_CHAR, "bus/usb/001/007",
                   KV("bDeviceClass=00", "manufacturer=X-Rite", "product=i1Display", "removable=removable"));
        write_db(METER_CHAR, KV("ID_VENDOR=X-Rite", "ID_MODEL=i1Display", "ID_VENDOR_FROM_DATABASE=X-Rite,_Inc.",
                                "ID_MODEL_FROM_DATABASE=i1Display_Pro", "ID_SERIAL_SHORT=A0123456",
                                "COLOR_MEASUREMENT_DEVICE=1", "COLORD_SENSOR_KIND=i1-display3",
                                "COLORD_SENSOR_CAPS=lcd crt projector ambient"));
}

static void unplug_meter(void) {
        remove_db(METER_CHAR);
        remove_sysfs(METER_SYS, METER_CHAR);
}

static void build_tree(void) {
        char tmpl[] = "/tmp/tinct-udev-XXXXXX";
        assert_se(mkdtemp(tmpl));
        root = strdup(tmpl);
        assert_se(chmod(root, 0755) == 0);
        const char *const dirs[] = { "sys/dev/char", "sys/dev/block", "sys/bus/usb", "sys/class/video4linux",
                                     "run/udev/data", "bin", NULL };
        for (const char *const *d = dirs; *d; d++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", root, *d);
                mkdir_p(p);
        }
        /* The port the camera hangs off is built in; its removable says so. */
        _cleanup_free_ char *port = xasprintf("%s/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3", root);
        mkdir_p(port);

        make_sysfs(SCANNER_SYS, "usb", "189:1", "bus/usb/001/002", KV("bDeviceClass=00", "removable=removable"));
        write_db("189:1", KV("ID_VENDOR=Canon_Inc.", "ID_MODEL=CanoScan_LiDE_220", "ID_SEAT=seat1", "libsane_matched=yes"));
        /* SANE tags the hub too when a scanner hangs off it. */
        make_sysfs("/sys/devices/pci0000:00/0000:00:14.0/usb1", "usb", "189:0", "bus/usb/001/001", KV("bDeviceClass=09"));
        write_db("189:0", KV("ID_VENDOR=Linux_Foundation", "ID_MODEL=2.0_root_hub", "libsane_matched=yes"));
        make_sysfs("/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3/1-3.1", "usb", "189:3", "bus/usb/001/004",
                   KV("bDeviceClass=00"));
        _cleanup_free_ char *removable = xasprintf("%s/removable", port);
        write_file(removable, "fixed\n");
        write_db("189:3", KV("ID_VENDOR=Nikon_Corp.", "ID_MODEL=D3200", "ID_GPHOTO2=1", "COLORD_DEVICE=1", "COLORD_KIND=camera"));
        /* A webcam: colord's rules tag it, but only gphoto2 cameras become devices. */
        make_sysfs("/sys/devices/pci0000:00/0000:00:14.0/usb1/1-6/1-6:1.0/video4linux/video0", "video4linux", "81:0",
                   "video0", NULL);
        write_db("81:0", KV("ID_V4L_PRODUCT=Integrated_Camera", "COLORD_DEVICE=1", "COLORD_KIND=camera"));
        /* A ColorHug in its bootloader: colord's rules say to ignore it. */
        make_sysfs("/sys/devices/pci0000:00/0000:00:14.0/usb1/1-7", "usb", "189:8", "bus/usb/001/009", KV("bDeviceClass=ff"));
        write_db("189:8", KV("ID_VENDOR=Hughski", "COLORD_SENSOR_KIND=colorhug", "COLORD_IGNORE=1"));
        /* A disk: not a character device, not ours. */
        _cleanup_free_ char *block = xasprintf("%s/run/udev/data/b8:0", root);
        write_file(block, "E:ID_MODEL=Disk\n");
        plug_meter();
}

/* The stand-in for ArgyllCMS's spotread (see the top of the file). Its behaviour follows
 * files in ROOT: "unplugged" makes the instrument fail to initialise, "hold" makes it
 * keep the reading to itself. Every run appends its arguments to ROOT/spotread.log. */
static void install_spotread(bool present) {
        _cleanup_free_ char *path = xasprintf("%s/bin/spotread", root);
        if (!present) {
                assert_se(unlink(path) == 0);
                return;
        }
        _cleanup_free_ char *script = xasprintf(
                "#!/bin/sh\n"
                "R='%s'\n"
                "echo \"$*\" >> \"$R/spotread.log\"\n"
                "[ \"$ARGYLL_NOT_INTERACTIVE\" = 1 ] || exit 3\n"
                "if [ \"$1\" = '-?' ]; then\n"
                "  { echo 'Read Print Spot values, Version 2.3.1'\n"
                "    echo ' -c listno            Set communication port from the following list (default 1)'\n"
                "    echo \"    1 = '/dev/ttyS0'\"\n"
                "    echo \"    2 = '/dev/bus/usb/001/009 (Hughski ColorHug)'\"\n"
                "    echo \"    3 = '%s (Xrite i1 DisplayPro, ColorMunki Display)'\"\n"
                "    echo ' -X file.ccmx = apply a correction matrix'; } >&2\n"
                "  exit 1\n"
                "fi\n"
                "if [ -e \"$R/unplugged\" ]; then\n"
                "  echo \"Instrument initialisation failed with 'Communications failure' (xx)\"; exit 1\n"
                "fi\n"
                "n=0\n"
                "while :; do\n"
                "  printf 'Place instrument on spot to be measured,\\nand hit [A-Z] to read white\\nHit ESC or Q to exit, any other key to take a reading: '\n"
                "  read -r key || exit 0\n"
                "  while [ -e \"$R/hold\" ]; do read -r key || exit 0; done\n"
                "  n=$((n + 1))\n"
                "  echo\n"
                "  echo \" Result is XYZ: 95.$n 100.000000 108.900000, D50 Lab: 100.0 0.0 0.0\"\n"
                "  echo ''\n"
                "done\n",
                root, METER_NODE);
        write_file(path, script);
        assert_se(chmod(path, 0755) == 0);
}

static char *spotread_log(void) {
        _cleanup_free_ char *path = xasprintf("%s/spotread.log", root);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        char buf[4096] = "";
        if (fd >= 0)
                assert_se(read(fd, buf, sizeof buf - 1) >= 0);
        (void) unlink(path);
        return strdup(buf);
}

static void flag(const char *name, bool on) {
        _cleanup_free_ char *path = xasprintf("%s/%s", root, name);
        if (on)
                write_file(path, "");
        else
                assert_se(unlink(path) == 0);
}

static char *device_path(const char *id) {
        char *p = xasprintf(CM_PATH "/devices/%s", id);
        for (char *s = p + strlen(CM_PATH "/devices/"); *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
                        *s = '_';
        return p;
}

static void check_device(sd_bus *bus, const char *id, const char *const *want) {
        _cleanup_free_ char *path = device_path(id);
        assert_find_ok(bus, "FindDeviceById", id, path);
        for (const char *const *w = want; *w; w += 2) {
                _cleanup_free_ char *v = harness_get_string(bus, path, CM_DEVICE_IFACE, w[0]);
                if (!streq(v, w[1])) {
                        fprintf(stderr, "%s %s: '%s' != '%s'\n", id, w[0], v, w[1]);
                        abort();
                }
        }
}

static void test_coldplug(Harness *h, sd_bus *bus) {
        _cleanup_strv_free_ char **scanners = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", "scanner");
        _cleanup_free_ char *scanner = device_path(SCANNER_ID), *camera = device_path(CAMERA_ID);
        assert_strv(scanners, scanner); /* the hub is not one */
        check_device(bus, SCANNER_ID, KV("Kind", "scanner", "Mode", "physical", "Colorspace", "rgb", "Vendor", "Canon", /* the vendor quirk of every device */
                                         "Model", "CanoScan LiDE 220", "Serial", SCANNER_SYS, "Seat", "seat1",
                                         "Scope", "normal"));
        assert_se(!harness_get_bool(bus, scanner, CM_DEVICE_IFACE, "Embedded"));
        assert_se(harness_get_u32(bus, scanner, CM_DEVICE_IFACE, "Owner") == 0);

        _cleanup_strv_free_ char **cameras = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", "camera");
        assert_strv(cameras, camera); /* not the webcam */
        check_device(bus, CAMERA_ID, KV("Kind", "camera", "Vendor", "Nikon Corp.", "Model", "D3200", "Seat", "seat0"));
        assert_se(harness_get_bool(bus, camera, CM_DEVICE_IFACE, "Embedded"));

        /* The colorimeter, and not the bootloader. */
        _cleanup_strv_free_ char **sensors = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetSensors", NULL);
        assert_strv(sensors, SENSOR0);
        assert_find_ok(bus, "FindSensorById", "i1-display3-00", SENSOR0);
        check_getall(h, bus, SENSOR0, CM_SENSOR_IFACE, sensor_props, NULL);
        static const char *const want[][2] = {
                { "SensorId", "i1-display3-00" }, { "Kind", "i1-display3" }, { "State", "idle" },
                { "Mode", "unknown" }, { "Serial", "A0123456" }, { "Model", "i1Display Pro" },
                { "Vendor", "X-Rite, Inc." },
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                _cleanup_free_ char *v = harness_get_string(bus, SENSOR0, CM_SENSOR_IFACE, want[i][0]);
                if (!streq(v, want[i][1])) {
                        fprintf(stderr, "%s: '%s' != '%s'\n", want[i][0], v, want[i][1]);
                        abort();
                }
        }
        assert_se(!harness_get_bool(bus, SENSOR0, CM_SENSOR_IFACE, "Native"));
        assert_se(!harness_get_bool(bus, SENSOR0, CM_SENSOR_IFACE, "Embedded"));
        assert_se(!harness_get_bool(bus, SENSOR0, CM_SENSOR_IFACE, "Locked"));
        _cleanup_strv_free_ char **caps = harness_get_strv(bus, SENSOR0, CM_SENSOR_IFACE, "Capabilities", "as");
        assert_strv(caps, "lcd", "crt", "projector", "ambient");
        /* colord-data's picture of the instrument, where the package put it. */
        _cleanup_strv_free_ char **meta = harness_get_dict(bus, SENSOR0, CM_SENSOR_IFACE, "Metadata");
        const char *attach = "/usr/share/colord/icons/i1-display3-attach.svg";
        if (access(attach, F_OK) == 0)
                assert_streq(harness_dict_get(meta, "ImageAttach"), attach);
        else
                assert_se(!harness_dict_get(meta, "ImageAttach"));
}

/* Waits for a manager signal about this object. */
static void wait_for(Recorder *rec, const char *member, const char *object) {
        for (size_t i = 0;; i++) {
                i = recorder_wait_after(rec, i, member, CM_PATH);
                if (streq_ptr(recorder_get(rec, i)->arg0, object))
                        return;
        }
}

static void test_hotplug_scanner(Harness *h, sd_bus *bus) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_free_ char *path = device_path(SCANNER2_ID);
        recorder_reset(rec);
        make_sysfs(SCANNER2_SYS, "usb", "189:4", "bus/usb/001/005", KV("bDeviceClass=00"));
        write_db("189:4", KV("ID_VENDOR=Epson", "ID_MODEL=Perfection_V39", "libsane_matched=yes"));
        wait_for(rec, "DeviceAdded", path);
        check_device(bus, SCANNER2_ID, KV("Kind", "scanner", "Vendor", "Epson", "Model", "Perfection V39", "Serial", SCANNER2_SYS));

        /* udevd rewrites the database on a change: the same device, no second one. */
        write_db("189:4", KV("ID_VENDOR=Epson", "ID_MODEL=Perfection_V39", "libsane_matched=yes", "ID_PATH=x"));
        _cleanup_strv_free_ char **scanners = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", "scanner");
        assert_se(strv_length(scanners) == 2);

        recorder_reset(rec);
        remove_db("189:4");
        wait_for(rec, "DeviceRemoved", path);
        remove_sysfs(SCANNER2_SYS, "189:4");
        assert_find_error(bus, "FindDeviceById", SCANNER2_ID, CM_ERR "NotFound");

        /* Plugged in again, it is back under the same id. */
        recorder_reset(rec);
        make_sysfs(SCANNER2_SYS, "usb", "189:4", "bus/usb/001/006", KV("bDeviceClass=00"));
        write_db("189:4", KV("ID_VENDOR=Epson", "ID_MODEL=Perfection_V39", "libsane_matched=yes"));
        wait_for(rec, "DeviceAdded", path);
        check_device(bus, SCANNER2_ID, KV("Kind", "scanner"));
        recorder_reset(rec);
        remove_db("189:4");
        wait_for(rec, "DeviceRemoved", path);
        remove_sysfs(SCANNER2_SYS, "189:4");
}

static int get_sample(sd_bus *bus, const char *sensor, const char *cap, double xyz[3], sd_bus_error *e) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = harness_call(bus, sensor, CM_SENSOR_IFACE, "GetSample", e, &reply, "s", cap);
        if (r < 0)
                return r;
        assert_se(sd_bus_message_read(reply, "ddd", &xyz[0], &xyz[1], &xyz[2]) >= 0);
        return 0;
}

static void expect_sample_error(sd_bus *bus, const char *sensor, const char *cap, const char *name, const char *text) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        double xyz[3];
        int r = get_sample(bus, sensor, cap, xyz, &e);
        assert_bus_error(r, &e, name);
        if (!strstr(e.message, text)) {
                fprintf(stderr, "error '%s' lacks '%s'\n", e.message, text);
                abort();
        }
}

static void assert_state(sd_bus *bus, const char *sensor, const char *want) {
        _cleanup_free_ char *state = harness_get_string(bus, sensor, CM_SENSOR_IFACE, "State");
        assert_streq(state, want);
}

static void test_readings(Harness *h, sd_bus *bus) {
        double xyz[3];
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *log = NULL;

        must_call(bus, SENSOR0, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        assert_se(harness_get_bool(bus, SENSOR0, CM_SENSOR_IFACE, "Locked"));

        /* Without ArgyllCMS: the error says what to install. */
        expect_sample_error(bus, SENSOR0, "lcd", CM_SENSOR_ERR "NoSupport", "argyll");

        install_spotread(true);
        assert_se(get_sample(bus, SENSOR0, "lcd", xyz, &e) == 0);
        assert_se(fabs(xyz[0] - 95.1) < 1e-9 && fabs(xyz[1] - 100) < 1e-9 && fabs(xyz[2] - 108.9) < 1e-9);
        assert_state(bus, SENSOR0, "idle");
        /* One run to find the port (3: our device node), one that stays for the next reading. */
        log = spotread_log();
        assert_streq(log, "-?\n-d -c3 -N -yl\n");
        assert_se(get_sample(bus, SENSOR0, "lcd", xyz, &e) == 0);
        assert_se(fabs(xyz[0] - 95.2) < 1e-9);
        free(log);
        log = spotread_log();
        assert_streq(log, "");
        /* Another display type needs another spotread; ambient light is lux in X. */
        assert_se(get_sample(bus, SENSOR0, "crt", xyz, &e) == 0);
        assert_se(fabs(xyz[0] - 95.1) < 1e-9);
        assert_se(get_sample(bus, SENSOR0, "ambient", xyz, &e) == 0);
        assert_se(fabs(xyz[0] - 100) < 1e-9 && xyz[1] == -1 && xyz[2] == -1);
        free(log);
        log = spotread_log();
        assert_streq(log, "-d -c3 -N -yc\n-d -c3 -N -a\n");

        /* SetOptions and spectra are the dummy's only. */
        int r = harness_call(bus, SENSOR0, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "sample[red]", "d", 0.5);
        assert_bus_error(r, &e, CM_SENSOR_ERR "NoSupport");
        sd_bus_error_free(&e);
        r = harness_call(bus, SENSOR0, CM_SENSOR_IFACE, "GetSpectrum", &e, NULL, "s", "spectral");
        assert_bus_error(r, &e, CM_SENSOR_ERR "NoSupport");
        sd_bus_error_free(&e);

        /* Unlocking ends spotread; the instrument then fails to answer. */
        must_call(bus, SENSOR0, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
        must_call(bus, SENSOR0, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        flag("unplugged", true);
        expect_sample_error(bus, SENSOR0, "lcd", CM_SENSOR_ERR "Internal", "failed to contact hardware (replug)");
        assert_state(bus, SENSOR0, "idle");
        flag("unplugged", false);
        assert_se(get_sample(bus, SENSOR0, "lcd", xyz, &e) == 0);
        free(log);
        log = spotread_log();
        assert_streq(log, "-d -c3 -N -yl\n-d -c3 -N -yl\n"); /* the port is remembered */
        must_call(bus, SENSOR0, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        *(sd_bus_message **) userdata = sd_bus_message_ref(m);
        return 0;
}

/* Unplugged in the middle of a reading: the caller gets an error, the sensor goes, and a
 * replug gets the next id. */
static void test_unplug_while_reading(Harness *h, sd_bus *bus) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;

        must_call(bus, SENSOR0, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        flag("hold", true);
        recorder_reset(rec);
        assert_se(sd_bus_call_method_async(bus, &slot, CM_NAME, SENSOR0, CM_SENSOR_IFACE, "GetSample", on_reply, &reply,
                                           "s", "lcd") >= 0);
        assert_se(sd_bus_flush(bus) >= 0);
        size_t i = recorder_wait(rec, "PropertiesChanged", SENSOR0); /* State: measuring */
        assert_se(recorder_find(rec, i, "PropertiesChanged", SENSOR0, "State") != (size_t) -1);
        unplug_meter();
        wait_for(rec, "SensorRemoved", SENSOR0);
        while (!reply) {
                assert_se(sd_bus_process(bus, NULL) >= 0);
                if (!reply)
                        assert_se(sd_bus_wait(bus, HARNESS_CALL_TIMEOUT_USEC) >= 0);
        }
        assert_se(sd_bus_message_is_method_error(reply, CM_SENSOR_ERR "Internal"));
        assert_se(strstr(sd_bus_message_get_error(reply)->message, "unplugged"));
        flag("hold", false);
        _cleanup_strv_free_ char **none = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetSensors", NULL);
        assert_strv_empty(none);
        assert_find_error(bus, "FindSensorById", "i1-display3-00", CM_ERR "NotFound");
        free(spotread_log());

        recorder_reset(rec);
        plug_meter();
        wait_for(rec, "SensorAdded", SENSOR1);
        assert_find_ok(bus, "FindSensorById", "i1-display3-01", SENSOR1);
        assert_se(!harness_get_bool(bus, SENSOR1, CM_SENSOR_IFACE, "Locked"));
}

int main(void) {
        if (streq_ptr(getenv("TINCT_TEST_DAEMON"), "colord")) {
                fprintf(stderr, "colord reads the real udev only; skipping\n");
                return 77;
        }
        const char *tinctd = getenv("TINCTD");
        if (!tinctd)
                return 77;
        build_tree();

        /* The harness always passes --no-udev; this wrapper drops it so discovery runs, and
         * gives the daemon a PATH where spotread is the stand-in or nothing. */
        _cleanup_free_ char *wrapper = xasprintf("%s/tinctd-with-discovery", root);
        _cleanup_free_ char *script = xasprintf("#!/bin/sh\nfor a; do shift; [ \"$a\" = --no-udev ] || set -- \"$@\" \"$a\"; done\n"
                                                "PATH='%s/bin'; export PATH\nexec '%s' \"$@\"\n", root, tinctd);
        write_file(wrapper, script);
        assert_se(chmod(wrapper, 0755) == 0);
        assert_se(setenv("TINCTD", wrapper, 1) == 0);

        const HarnessOptions opts = {
                .polkit = "allow",
                .extra_args = (const char *const[]) { "--sysfs-root", root, NULL },
        };
        _cleanup_harness_ Harness *h = harness_start(&opts);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        RUN(test_coldplug, h, bus);
        RUN(test_hotplug_scanner, h, bus);
        RUN(test_readings, h, bus);
        RUN(test_unplug_while_reading, h, bus);

        harness_assert_alive(h);
        h = harness_stop(h);
        char *argv[] = { (char *) "rm", (char *) "-rf", root, NULL };
        run(argv);
        return 0;
}
