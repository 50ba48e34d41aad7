/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-sane-list: lists the scanners SANE sees, for tinctd, in a process of its own
 * (docs/scanners.md). SANE backends are slow, can hang and are vendors' code, so this
 * never runs inside the daemon: tinctd starts a fresh one for every rescan (so each sees
 * the SANE configuration as it is then), reads its lines, and kills it after a timeout.
 * It confines itself first (sane-confine.h), honours SANE_CONFIG_DIR as libsane does, and
 * for each of sane-airscan's configured eSCL scanners asks the scanner's
 * ScannerCapabilities for its UUID, which sane-airscan does not pass on.
 *
 * Output, one record per line, fields separated by a tab (tabs, newlines and other
 * control characters in a field become spaces, bytes that are not UTF-8 U+FFFD):
 *   sane  NAME VENDOR MODEL TYPE         a SANE device
 *   escl  NAME UUID URL MAKE-AND-MODEL   an eSCL scanner that answered
 *   escl-error NAME URL REASON           an eSCL scanner that did not (or not sensibly)
 *   end                                  the listing is complete
 * It does not decide which devices tinct shows: that is the daemon's.
 *
 * With --socket it is a service of its own (tinct-sane-list@.service, one per connection
 * on tinct-sane-list.socket), not the daemon's child: stdin and stdout are the connection.
 * It first reads the daemon's request line (scanner-wire.h) for its time limits, and ends
 * itself (SIGALRM) when the whole listing takes longer, as the daemon cannot kill it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sane/sane.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "airscan-conf.h"
#include "escl-id.h"
#include "fileio.h"
#include "http-url.h"
#include "http-wire.h"
#include "log.h"
#include "macro.h"
#include "main-func.h"
#include "sane-confine.h"
#include "sane-names.h"
#include "scanner-wire.h"
#include "socket-util.h"
#include "time-util.h"

#define DEFAULT_CONFIG_DIR "/etc/sane.d"
#define CONFIG_FILE_MAX (256 * 1024)
#define RESPONSE_MAX (1024 * 1024) /* a ScannerCapabilities document is a few KiB */
#define DEFAULT_HTTP_TIMEOUT_MS 5000
#define REQUEST_WAIT_MS 5000 /* the daemon writes its request as soon as it connects */
#define SOCKET_GRACE_SEC 5

static void print_field(const char *s) {
        char field[SCANNER_FIELD_OUT_MAX];
        scanner_wire_field(s, field);
        putchar('\t');
        fputs(field, stdout);
}

static void print_record(ScannerRecordKind kind, const char *const *fields) {
        fputs(scanner_record_kind_name(kind), stdout);
        for (size_t i = 0; i < scanner_record_n_fields(kind); i++)
                print_field(fields[i]);
        putchar('\n');
}

/* ---- sane-airscan's configured devices ----------------------------------------------- */

static void read_airscan_file(const char *path, AirscanDevice **devices, size_t *n) {
        _cleanup_free_ uint8_t *text = NULL;
        size_t len;
        int r = read_file_capped(path, CONFIG_FILE_MAX, READ_REGULAR_ONLY, &text, &len, NULL);
        if (r < 0) {
                if (r != -ENOENT)
                        log_warning_errno(r, "%s: %m", path);
                return;
        }
        r = airscan_conf_parse((const char *) text, devices, n);
        if (r < 0)
                log_warning_errno(r, "%s: %m", path);
}

/* libsane's search: SANE_CONFIG_DIR's directories, and the default one when it is unset or
 * ends with ':'; the first directory holding airscan.conf is sane-airscan's. */
static int read_airscan_config(AirscanDevice **devices, size_t *n) {
        const char *env = getenv("SANE_CONFIG_DIR");
        _cleanup_free_ char *dirs = NULL;
        if (asprintf(&dirs, "%s%s", env ? env : "", !env || (*env && env[strlen(env) - 1] == ':') ? DEFAULT_CONFIG_DIR : "") < 0)
                return -ENOMEM;
        for (char *dir = strtok(dirs, ":"); dir; dir = strtok(NULL, ":")) {
                _cleanup_free_ char *file = NULL, *sub = NULL;
                if (asprintf(&file, "%s/airscan.conf", dir) < 0 || asprintf(&sub, "%s/airscan.d", dir) < 0)
                        return -ENOMEM;
                if (access(file, F_OK) < 0)
                        continue;
                read_airscan_file(file, devices, n);
                DIR *d = opendir(sub);
                struct dirent *de;
                while (d && (de = readdir(d))) {
                        _cleanup_free_ char *path = NULL;
                        if (de->d_name[0] == '.')
                                continue;
                        if (asprintf(&path, "%s/%s", sub, de->d_name) < 0) {
                                closedir(d);
                                return -ENOMEM;
                        }
                        read_airscan_file(path, devices, n);
                }
                if (d)
                        closedir(d);
                break;
        }
        return 0;
}

/* ---- one GET ------------------------------------------------------------------------- */

static int connect_to(const HttpUrl *u, uint64_t deadline, int *ret_fd) {
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
        char port[8];
        snprintf(port, sizeof port, "%u", u->port);
        int r = getaddrinfo(u->host, port, &hints, &ai);
        if (r != 0)
                return -EHOSTUNREACH;
        r = -EHOSTUNREACH;
        for (struct addrinfo *a = ai; a; a = a->ai_next) {
                int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
                if (fd < 0)
                        continue;
                if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
                        r = -errno;
                        close(fd);
                        continue;
                }
                int err = 0;
                socklen_t len = sizeof err;
                r = fd_wait_until(fd, POLLOUT, deadline);
                if (r >= 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) >= 0 && err == 0) {
                        *ret_fd = fd;
                        freeaddrinfo(ai);
                        return 0;
                }
                if (r >= 0)
                        r = -err;
                close(fd);
                if (r == -ETIMEDOUT)
                        break;
        }
        freeaddrinfo(ai);
        return r;
}

/* Reads the response to the end of its body (src/http frames it) or of the connection:
 * *ret_head, and its body in *ret_body (malloc'd, NUL-terminated). */
static int read_response(int fd, uint64_t deadline, HttpHead *ret_head, char **ret_body, size_t *ret_len,
                         const char **ret_reason) {
        _cleanup_free_ uint8_t *buf = malloc(RESPONSE_MAX), *owned = NULL;
        size_t len = 0;
        bool have_head = false;
        HttpHead head = {};
        int r;
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n = len < RESPONSE_MAX ? recv(fd, buf + len, RESPONSE_MAX - len, 0) : 0;
                if (n < 0 && errno == EAGAIN) {
                        r = fd_wait_until(fd, POLLIN, deadline);
                        if (r < 0) {
                                *ret_reason = r == -ETIMEDOUT ? "no answer (timed out)" : "connection failed";
                                return r;
                        }
                        continue;
                }
                if (n < 0) {
                        *ret_reason = "connection failed";
                        return -errno;
                }
                bool full = len + (size_t) n == RESPONSE_MAX, eof = n == 0 && !full;
                len += (size_t) n;
                if (!have_head) {
                        r = http_parse_head(buf, len, &head);
                        if (r == -EAGAIN && !eof && !full)
                                continue;
                        if (r < 0) {
                                *ret_reason = "not an HTTP response";
                                return -EBADMSG;
                        }
                        have_head = true;
                }
                const uint8_t *body;
                size_t body_len;
                r = http_body(buf, len, &head, RESPONSE_MAX, eof, &body, &body_len, &owned);
                if (r == -EAGAIN && !full)
                        continue;
                if (r == -EAGAIN || r == -EFBIG) {
                        *ret_reason = "answer too long";
                        return -EFBIG;
                }
                if (r < 0) {
                        *ret_reason = "not an HTTP response";
                        return r;
                }
                if (!owned) {
                        owned = malloc(body_len + 1);
                        if (!owned)
                                return -ENOMEM;
                        memcpy(owned, body, body_len);
                        owned[body_len] = 0;
                }
                *ret_head = head;
                *ret_body = (char *) TAKE_PTR(owned);
                *ret_len = body_len;
                return 0;
        }
}

/* GET <base>/ScannerCapabilities; *ret_reason says why not (static). */
static int fetch_capabilities(const char *base, int timeout_ms, char **ret_body, size_t *ret_len,
                              const char **ret_reason) {
        _cleanup_(http_url_done) HttpUrl u = {};
        _cleanup_free_ char *target = NULL;
        _cleanup_free_ uint8_t *request = NULL;
        _cleanup_close_ int fd = -1;
        uint64_t deadline = now(CLOCK_MONOTONIC) + (uint64_t) timeout_ms * USEC_PER_MSEC;
        size_t request_len;
        HttpHead head = {};
        int r;

        r = http_url_parse(base, &u);
        if (r < 0 || !streq(u.scheme, "http")) {
                *ret_reason = r >= 0 && streq(u.scheme, "https") ? "https is not supported" : "not an http URL";
                return r < 0 ? r : -EPROTONOSUPPORT;
        }
        bool slash = u.target[strlen(u.target) - 1] == '/';
        if (asprintf(&target, "%s%sScannerCapabilities", u.target, slash ? "" : "/") < 0)
                return -ENOMEM;
        r = http_build_request(&(HttpRequest) { .method = "GET", .authority = u.authority, .target = target,
                                                .accept = "text/xml", .user_agent = "tinct-sane-list" },
                               &request, &request_len);
        if (r < 0) {
                *ret_reason = "not an http URL";
                return r;
        }
        r = connect_to(&u, deadline, &fd);
        if (r < 0) {
                *ret_reason = r == -ETIMEDOUT ? "no answer (connect timed out)" : "cannot connect";
                return r;
        }
        for (size_t sent = 0; sent < request_len;) {
                ssize_t n = send(fd, request + sent, request_len - sent, MSG_NOSIGNAL);
                if (n < 0 && errno == EAGAIN)
                        r = fd_wait_until(fd, POLLOUT, deadline);
                else if (n < 0)
                        r = -errno;
                else
                        sent += (size_t) n;
                if (r < 0) {
                        *ret_reason = r == -ETIMEDOUT ? "no answer (timed out)" : "connection failed";
                        return r;
                }
        }
        r = read_response(fd, deadline, &head, ret_body, ret_len, ret_reason);
        if (r < 0)
                return r;
        if (head.status != 200) {
                free(*ret_body);
                *ret_body = NULL;
                *ret_reason = "ScannerCapabilities answered an HTTP error";
                return -EBADMSG;
        }
        return 0;
}

static void list_escl(const char *sane_name, const char *config_name, const AirscanDevice *conf, size_t n_conf,
                      int timeout_ms) {
        const AirscanDevice *dev = NULL;
        for (size_t i = 0; i < n_conf && !dev; i++)
                if (streq(conf[i].name, config_name))
                        dev = &conf[i];
        if (!dev) {
                /* Found through mDNS: its address is sane-airscan's to know (docs/scanners.md). */
                print_record(SCANNER_RECORD_ESCL_ERROR, (const char *[]) { sane_name, "", "not configured in airscan.conf" });
                return;
        }
        _cleanup_free_ char *body = NULL;
        size_t len;
        const char *reason = NULL;
        _cleanup_(escl_capabilities_done) EsclCapabilities caps = {};
        int r = fetch_capabilities(dev->url, timeout_ms, &body, &len, &reason);
        if (r >= 0) {
                r = escl_capabilities_parse(body, len, &caps);
                if (r < 0)
                        reason = "ScannerCapabilities is not a capabilities document";
                else if (!caps.uuid) {
                        reason = "ScannerCapabilities has no UUID";
                        r = -EBADMSG;
                }
        }
        if (r < 0) {
                print_record(SCANNER_RECORD_ESCL_ERROR, (const char *[]) { sane_name, dev->url, reason });
                return;
        }
        print_record(SCANNER_RECORD_ESCL, (const char *[]) { sane_name, caps.uuid, dev->url, strempty(caps.make_and_model) });
}

/* --socket: the daemon's request on stdin, one line; sets the time limits it names. */
static int read_request(int *ret_timeout_ms) {
        char line[SCANNER_REQUEST_MAX];
        size_t len = 0;
        uint64_t deadline = now(CLOCK_MONOTONIC) + REQUEST_WAIT_MS * USEC_PER_MSEC;
        unsigned http_ms, total_ms;
        for (;;) {
                if (len == sizeof line)
                        return -EBADMSG;
                /* Byte by byte: a request is a few bytes, and nothing follows it. */
                int r = fd_wait_until(STDIN_FILENO, POLLIN, deadline);
                if (r < 0)
                        return r;
                ssize_t n = read(STDIN_FILENO, line + len, 1);
                if (n == 0)
                        return -EBADMSG;
                if (n < 0 && errno != EINTR && errno != EAGAIN)
                        return -errno;
                if (n < 0)
                        continue;
                if (line[len] == '\n')
                        break;
                len++;
        }
        line[len] = 0;
        if (scanner_request_parse(line, &http_ms, &total_ms) < 0)
                return -EBADMSG;
        *ret_timeout_ms = (int) http_ms;
        /* The default action ends it; systemd's RuntimeMaxSec= is the unit's bound beside it.
         * Later than the daemon's own limit, so that the daemon's timeout is the one that
         * reports a hung backend, not a connection closed early. */
        signal(SIGALRM, SIG_DFL);
        alarm((total_ms + 999) / 1000 + SOCKET_GRACE_SEC);
        return 0;
}

static int parse_args(int argc, char **argv, int *ret_timeout_ms, bool *ret_socket) {
        for (int i = 1; i < argc; i++) {
                char *end;
                if (streq(argv[i], "--socket"))
                        *ret_socket = true;
                else if (streq(argv[i], "--http-timeout-ms") && i + 1 < argc) {
                        long v = strtol(argv[++i], &end, 10);
                        if (*end || v <= 0 || v > 600000)
                                return -EINVAL;
                        *ret_timeout_ms = (int) v;
                } else
                        return -EINVAL;
        }
        return 0;
}

typedef struct AirscanConfig {
        AirscanDevice *devices;
        size_t n;
} AirscanConfig;

static void airscan_config_done(AirscanConfig *c) {
        airscan_devices_free(c->devices, c->n);
        *c = (AirscanConfig) {};
}

/* Exit status: 0 with a complete listing on stdout (its "end" line), 2 for a bad command
 * line, 1 when it could not confine itself, read its request or run libsane. */
static int run(int argc, char **argv) {
        _cleanup_(airscan_config_done) AirscanConfig conf = {};
        int timeout_ms = DEFAULT_HTTP_TIMEOUT_MS;
        bool socket_mode = false;
        const char *step;
        const SANE_Device **list;
        int r;

        log_set_program_name("tinct-sane-list");
        if (parse_args(argc, argv, &timeout_ms, &socket_mode) < 0) {
                log_error("Usage: tinct-sane-list [--http-timeout-ms MS] [--socket]");
                return 2;
        }
        r = sane_confine(!socket_mode, &step);
        if (r < 0)
                return log_error_errno(r, "Cannot confine itself (%s): %m", step);
        if (socket_mode) {
                r = read_request(&timeout_ms);
                if (r == -EBADMSG)
                        return log_error_errno(r, "No valid request on the socket: not a request line.");
                if (r < 0)
                        return log_error_errno(r, "No valid request on the socket: %m");
        }
        r = read_airscan_config(&conf.devices, &conf.n);
        if (r < 0)
                return log_oom();
        SANE_Status st = sane_init(NULL, NULL);
        if (st != SANE_STATUS_GOOD)
                return log_error_errno(-EIO, "sane_init: %s", sane_strstatus(st));
        st = sane_get_devices(&list, SANE_FALSE);
        if (st != SANE_STATUS_GOOD) {
                log_error("sane_get_devices: %s", sane_strstatus(st));
                sane_exit();
                return -EIO;
        }
        for (size_t i = 0; list[i]; i++) {
                const SANE_Device *d = list[i];
                const char *config_name;
                if (!d->name)
                        continue;
                if (sane_name_is_airscan_escl(d->name, &config_name))
                        list_escl(d->name, config_name, conf.devices, conf.n, timeout_ms);
                else
                        print_record(SCANNER_RECORD_SANE, (const char *[]) { d->name, strempty(d->vendor),
                                                                             strempty(d->model), strempty(d->type) });
        }
        sane_exit();
        print_record(SCANNER_RECORD_END, NULL);
        if (fflush(stdout) != 0)
                return log_error_errno(errno > 0 ? -errno : -EIO, "Cannot write the listing: %m");
        return 0;
}

DEFINE_MAIN_FUNCTION(run)
