/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus-raw.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"

/* sd-bus as a client pipelines "\0AUTH EXTERNAL\r\nDATA\r\nNEGOTIATE_UNIX_FD\r\nBEGIN\r\n";
 * these are the answers a server gives, sent up front. */
static const char server_replies[] = "DATA\r\nOK 746e6374746e6374746e6374746e6374\r\nAGREE_UNIX_FD\r\n";
static const char client_end[] = "BEGIN\r\n";

static int read_some(int fd, uint8_t **buf, size_t *size, size_t *cap, size_t limit) {
        if (*size == *cap) {
                if (*cap >= limit)
                        return -EMSGSIZE;
                size_t n = *cap ? *cap * 2 : 4096;
                uint8_t *t = realloc(*buf, n);
                if (!t)
                        return -ENOMEM;
                *buf = t;
                *cap = n;
        }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 1000) <= 0) /* local socket pair: data is there or never comes */
                return -ETIMEDOUT;
        ssize_t k = recv(fd, *buf + *size, *cap - *size, MSG_DONTWAIT);
        if (k <= 0)
                return k == 0 ? -ECONNRESET : -errno;
        *size += (size_t) k;
        return 0;
}

int bus_message_wire_bytes(sd_bus_message *m, size_t limit, uint8_t **ret, size_t *ret_size) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
                return -errno;
        _cleanup_close_ int peer = sv[1];
        sd_bus *b = NULL;
        int r;

        if (send(peer, server_replies, sizeof server_replies - 1, MSG_NOSIGNAL) < 0) {
                close(sv[0]);
                return -errno;
        }
        r = sd_bus_new(&b);
        if (r < 0) {
                close(sv[0]);
                return r;
        }
        r = sd_bus_set_fd(b, sv[0], sv[0]);
        if (r < 0) {
                close(sv[0]);
                sd_bus_unref(b);
                return r;
        }
        r = sd_bus_start(b);
        for (int i = 0; r >= 0 && sd_bus_is_ready(b) <= 0 && i < 64; i++) {
                r = sd_bus_process(b, NULL);
                if (r == 0)
                        r = sd_bus_wait(b, 100 * 1000);
        }
        if (r >= 0)
                r = sd_bus_is_ready(b) > 0 ? 0 : -ETIMEDOUT;
        if (r >= 0)
                r = sd_bus_send(b, m, NULL);
        if (r >= 0)
                r = sd_bus_flush(b);
        sd_bus_flush_close_unref(b);
        if (r < 0)
                return r;

        /* What arrives: the client's auth lines, then the message. */
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size = 0, cap = 0, start = 0;
        for (;;) {
                uint8_t *e = size ? memmem(buf, size, client_end, sizeof client_end - 1) : NULL;
                if (e) {
                        start = (size_t) (e - buf) + sizeof client_end - 1;
                        break;
                }
                r = read_some(peer, &buf, &size, &cap, limit);
                if (r < 0)
                        return r;
        }
        /* The fixed header says how long the message is: 16 bytes, then the header fields
         * (length at offset 12, padded to 8), then the body (length at offset 4). */
        for (;;) {
                if (size - start >= 16) {
                        const uint8_t *h = buf + start;
                        bool be = h[0] == 'B';
#define U32(o) (be ? (uint32_t) h[o] << 24 | (uint32_t) h[o + 1] << 16 | (uint32_t) h[o + 2] << 8 | h[o + 3] \
                   : (uint32_t) h[o + 3] << 24 | (uint32_t) h[o + 2] << 16 | (uint32_t) h[o + 1] << 8 | h[o])
                        uint64_t total = 16 + (((uint64_t) U32(12) + 7) & ~(uint64_t) 7) + U32(4);
#undef U32
                        if (total > limit)
                                return -EMSGSIZE;
                        if (size - start >= total) {
                                uint8_t *out = malloc(total);
                                if (!out)
                                        return -ENOMEM;
                                memcpy(out, buf + start, total);
                                *ret = out;
                                *ret_size = total;
                                return 0;
                        }
                }
                r = read_some(peer, &buf, &size, &cap, limit + start);
                if (r < 0)
                        return r;
        }
}
