/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-login.h>
#include <unistd.h>

#include "fileio.h"
#include "manager.h"

int manager_get_client(Manager *m, sd_bus_message *msg, Client **ret) {
        const char *sender = sd_bus_message_get_sender(msg);
        if (!sender)
                return -ENXIO;
        Client *c = hashmap_get(m->clients, sender);
        if (c) {
                *ret = c;
                return 0;
        }

        /* One bus round trip per connection, then cached until it leaves (colord §16.19). */
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID | SD_BUS_CREDS_PID, &creds);
        if (r < 0)
                return r;
        uid_t uid;
        r = sd_bus_creds_get_euid(creds, &uid);
        if (r < 0)
                return r;
        pid_t pid = 0;
        (void) sd_bus_creds_get_pid(creds, &pid);

        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        c->name = strdup(sender);
        c->uid = uid;
        c->pid = pid;
        if (!c->name || hashmap_put(m->clients, c->name, c) < 0) {
                free(c->name);
                free(c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

void client_free(Client *c) {
        free(c->name);
        free(c->seat);
        free(c->cmdline);
        free(c);
}

static char *read_cmdline(pid_t pid) {
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int) pid);
        ssize_t n = read_file_head(path, buf, sizeof buf);
        if (n <= 0)
                return NULL;
        /* NULs between arguments become spaces; no trailing space, unlike colord (colord §16.12). */
        while (n > 0 && buf[n - 1] == 0)
                n--;
        for (ssize_t i = 0; i < n; i++)
                if (buf[i] == 0)
                        buf[i] = ' ';
        buf[n] = 0;
        return strdup(buf);
}

void client_read_process(Client *c) {
        if (c->process_known || c->pid <= 0)
                return;
        char *session = NULL;
        if (sd_pid_get_session(c->pid, &session) >= 0)
                (void) sd_session_get_seat(session, &c->seat);
        free(session);
        c->cmdline = read_cmdline(c->pid);
        c->process_known = true;
}
