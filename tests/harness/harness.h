/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test harness for the bus tests: a private system bus (dbus-daemon with
 * tests/harness/dbus-system.conf.in), an optional fake polkit authority
 * (tests/harness/fake-polkit.py) and the daemon under test, all inside one temporary
 * directory. It waits only on events (address and readiness lines, NameOwnerChanged,
 * child exit), each bounded by a deadline; a harness failure aborts the test, and an
 * overall alarm kills a hung test instead of letting it hang.
 *
 * The daemon is tinctd (path from $TINCTD) unless $TINCT_TEST_DAEMON=colord, which runs
 * Debian's /usr/libexec/colord in a private mount namespace (state dir bind-mounted over
 * /var/lib/colord, profile dir over /usr/share/color/icc). Tests that need tinct-only
 * behaviour check harness_is_colord() and skip or relax.
 *
 * Also here: small sd-bus helpers shared by the tests (calls with expected errors,
 * property reads, signal collection). Deliberately not here: any knowledge of the
 * daemon's internals; everything goes over the bus. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "cm-names.h"
#include "macro.h"

#define CM_ERR CM_IFACE "."
#define CM_DEVICE_ERR CM_IFACE ".Device."
#define CM_PROFILE_ERR CM_IFACE ".Profile."
#define CM_SENSOR_ERR CM_IFACE ".Sensor."

#define ACTION_PREFIX "org.freedesktop.color-manager."

#define NOBODY_UID 65534
#define NOBODY_GID 65534

/* Per call; generous because a busy 2-core machine can be very slow under sanitizers.
 * Only a guard against hangs, never a threshold a passing test gets near. */
#define HARNESS_CALL_TIMEOUT_USEC (120ULL * 1000 * 1000)

typedef struct HarnessOptions {
        const char *polkit;          /* NULL: no authority; "allow", "deny", "error", "silent" */
        const char *const *polkit_deny; /* NULL-terminated actions to deny in "allow" mode */
        const char *const *profiles; /* NULL-terminated files copied into the profile dir */
        const char *const *extra_args; /* NULL-terminated extra daemon arguments */
        bool dummy_sensor;           /* --create-dummy-sensor */
        bool no_profile_dir;         /* tinctd: pass no --profile-dir at all (defaults) */
        const char *daemon_passwd;   /* tinctd: bind-mount this file over /etc/passwd for the
                                      * daemon only (private mount namespace), e.g. to make a
                                      * uid the bus daemon accepts unknown to the daemon */
        uid_t confined_uid;          /* tinctd: not 0: run as this uid and gid, the way the
                                      * systemd unit confines it as far as that works without
                                      * systemd: a private mount namespace with / read-only
                                      * but the state directory, no capabilities, no groups,
                                      * no_new_privs. The state directory is chowned to it. */
        bool unit_syscall_filter;    /* with confined_uid: also the shipped unit's SystemCallFilter=
                                      * allow-list (expanded by systemd-analyze, applied by
                                      * syscall-allow, EPERM for the rest); skipped under
                                      * $TINCT_DAEMON_WRAPPER (valgrind needs more calls) */
        bool daemon_log;             /* tinctd: --verbose, its stderr appended (every start) to a
                                      * file of the temporary directory that
                                      * harness_daemon_log_count() reads */
} HarnessOptions;

typedef struct Harness Harness;

/* Starts everything; aborts the test on failure. Also sets DBUS_SYSTEM_BUS_ADDRESS in
 * this process so sd_bus_open_system() reaches the private bus, and arms an overall
 * alarm ($TINCT_TEST_TIMEOUT seconds, default 600). A missing daemon binary ($TINCTD
 * unset or not executable) fails the test; only colord as a non-root user skips (77). */
Harness *harness_start(const HarnessOptions *opts);
/* Kills everything, removes the temporary directory. Takes NULL, returns NULL. */
Harness *harness_stop(Harness *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(Harness *, harness_stop);
#define _cleanup_harness_ _cleanup_(harness_stopp)

const char *harness_address(Harness *h);
const char *harness_tmp_dir(Harness *h);
const char *harness_state_dir(Harness *h);
const char *harness_profile_dir(Harness *h);
const char *harness_polkit_log(Harness *h);
bool harness_is_colord(Harness *h);
pid_t harness_daemon_pid(Harness *h);

/* The path under which the daemon sees a file of harness_profile_dir() (differs for
 * colord, where that dir is mounted over /usr/share/color/icc). Returns a new string. */
char *harness_daemon_filename(Harness *h, const char *basename);

/* SIGTERM the daemon, wait for it to exit with status 0 (tinctd; colord may die by the
 * signal), start it again with the same state and profile dirs. Returns the old exit
 * status or a negative errno. */
int harness_restart_daemon(Harness *h);
/* SIGTERM the daemon and return its exit status (aborts if it does not exit). */
int harness_stop_daemon(Harness *h);
/* True while the daemon process has not exited. */
bool harness_daemon_running(Harness *h);

/* A new connection to the private bus (its own unique name). Aborts on failure. */
sd_bus *harness_connect(Harness *h);

/* Runs func in a forked child as uid/gid 65534 with no supplementary groups, with a
 * fresh bus connection opened there. Returns 0 when func returned >= 0 and the child
 * exited normally, else -EPROTO (the child's assertions print their own message). */
int harness_run_as_nobody(Harness *h, int (*func)(sd_bus *bus, void *userdata), void *userdata);

/* The same as any uid/gid (e.g. one without a passwd entry). */
int harness_run_as_uid(Harness *h, uid_t uid, gid_t gid, int (*func)(sd_bus *bus, void *userdata), void *userdata);

/* Waits (inotify on the log, with a deadline) until harness_polkit_count(h, action,
 * subject) >= n. */
void harness_polkit_wait(Harness *h, const char *action, const char *subject, int n);

/* How often needle occurs in the daemon's log so far (opts.daemon_log). */
int harness_daemon_log_count(Harness *h, const char *needle);

/* Number of lines in the fake polkit's log whose action id equals action (if not NULL)
 * and whose subject name equals subject (if not NULL). */
int harness_polkit_count(Harness *h, const char *action, const char *subject);

/* Copies a file into the profile dir atomically (write to a temp name, rename). */
void harness_install_profile(Harness *h, const char *src, const char *basename);

/* $TINCT_CORPUS_DIR/icc/<name> (new string); aborts if the corpus is missing. */
char *harness_corpus_file(const char *name);

/* ---- sd-bus helpers for tests --------------------------------------------------- */

/* Asserts that r / error describe a D-Bus error with exactly this name. */
#define assert_bus_error(r, error, name) harness_assert_bus_error((r), (error), (name), __FILE__, __LINE__)
void harness_assert_bus_error(int r, const sd_bus_error *error, const char *name, const char *file, int line);
/* Asserts r >= 0, printing the D-Bus error otherwise. */
#define assert_bus_ok(r, error) harness_assert_bus_ok((r), (error), __FILE__, __LINE__)
void harness_assert_bus_ok(int r, const sd_bus_error *error, const char *file, int line);

/* Calls with HARNESS_CALL_TIMEOUT_USEC on CM_NAME. */
int harness_call(sd_bus *bus, const char *path, const char *iface, const char *member,
                 sd_bus_error *error, sd_bus_message **reply, const char *types, ...);

/* CreateDevice(id, scope, {Kind: kind, extra key/value pairs...}); kv is a
 * NULL-terminated list of alternating keys and values (may be NULL). Returns the path
 * (new string) or NULL with r/error set. */
char *harness_create_device(sd_bus *bus, const char *id, const char *scope, const char *kind,
                            const char *const *kv, sd_bus_error *error, int *ret_r);
/* CreateProfile(id, scope, {kv...}). */
char *harness_create_profile(sd_bus *bus, const char *id, const char *scope,
                             const char *const *kv, sd_bus_error *error, int *ret_r);
/* CreateProfileWithFd(id, scope, fd, {kv...}); fd must be valid (sd-bus cannot send a
 * bare handle -1; the Python compat tests cover that libcolord variant). */
char *harness_create_profile_fd(sd_bus *bus, const char *id, const char *scope, int fd,
                                const char *const *kv, sd_bus_error *error, int *ret_r);
/* Same, asserting success. */
char *harness_must_create_device(sd_bus *bus, const char *id, const char *scope, const char *kind,
                                 const char *const *kv);
char *harness_must_create_profile(sd_bus *bus, const char *id, const char *scope,
                                  const char *const *kv);

/* Property readers on CM_NAME; abort on a D-Bus error or a type mismatch (the
 * property must have exactly the given type). */
char *harness_get_string(sd_bus *bus, const char *path, const char *iface, const char *prop);
bool harness_get_bool(sd_bus *bus, const char *path, const char *iface, const char *prop);
uint32_t harness_get_u32(sd_bus *bus, const char *path, const char *iface, const char *prop);
uint64_t harness_get_u64(sd_bus *bus, const char *path, const char *iface, const char *prop);
int64_t harness_get_i64(sd_bus *bus, const char *path, const char *iface, const char *prop);
char **harness_get_strv(sd_bus *bus, const char *path, const char *iface, const char *prop, const char *type);
/* a{ss} as a strv of alternating keys and values. */
char **harness_get_dict(sd_bus *bus, const char *path, const char *iface, const char *prop);
/* The signature of a property's value as returned by Get. */
char *harness_get_signature(sd_bus *bus, const char *path, const char *iface, const char *prop);
/* Looks a key up in an alternating key/value strv. */
const char *harness_dict_get(char **kv, const char *key);

/* An "ao"/"as" method result (the reply of a call with no arguments, or one "s"). */
char **harness_call_strv(sd_bus *bus, const char *path, const char *iface, const char *member,
                         const char *arg);

/* Peer.Ping the daemon on a new connection; aborts when the daemon is gone. */
void harness_assert_alive(Harness *h);

/* ---- signal recording --------------------------------------------------------------
 * A recorder subscribes (AddMatch, synchronously, so nothing is missed) to every signal
 * from the daemon's unique name and, when the recorder's bus is used for a method call,
 * records the signals and the reply in order of arrival. */
typedef struct Recorded {
        char *kind;        /* "signal" or "reply" or "error" */
        char *iface;
        char *member;
        char *path;
        char *arg0;        /* first "s"/"o" argument if any */
        char **changed;    /* PropertiesChanged: changed property names */
        char **changed_sigs; /* their value signatures, same order */
        sd_bus_message *msg;
} Recorded;

typedef struct Recorder Recorder;
Recorder *recorder_new(sd_bus *bus);
Recorder *recorder_free(Recorder *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(Recorder *, recorder_free);
#define _cleanup_recorder_ _cleanup_(recorder_freep)
/* Sends a method call asynchronously and processes the bus until its reply arrives,
 * recording every signal received before it (and the reply itself, last). */
int recorder_call(Recorder *rec, const char *path, const char *iface, const char *member,
                  sd_bus_error *error, sd_bus_message **reply, const char *types, ...);
/* Processes the bus until a signal with this member (and path, if not NULL) arrives
 * or has arrived since the last reset. Returns its index. Aborts on the deadline. */
size_t recorder_wait(Recorder *rec, const char *member, const char *path);
/* The same, for an entry at index >= start. */
size_t recorder_wait_after(Recorder *rec, size_t start, const char *member, const char *path);
size_t recorder_count(Recorder *rec);
const Recorded *recorder_get(Recorder *rec, size_t i);
/* Index of the first entry with this member (and path and changed property, if given)
 * at or after start, or (size_t) -1. */
size_t recorder_find(Recorder *rec, size_t start, const char *member, const char *path, const char *changed_prop);
/* Syncs with the daemon (Peer.Ping), dispatches what arrived and forgets everything. */
void recorder_reset(Recorder *rec);
void recorder_dump(Recorder *rec);
