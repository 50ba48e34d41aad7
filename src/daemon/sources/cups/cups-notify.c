/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cupsd's D-Bus notifier (see cups-notify.h). */
#include "cups-notify.h"

#include <assert.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cups-source.h"
#include "log.h"
#include "macro.h"
#include "time-util.h"

#define NOTIFIER_PATH "/org/cups/cupsd/Notifier"
#define NOTIFIER_INTERFACE "org.cups.cupsd.Notifier"
/* Server-wide subscriptions name the server itself. */
#define SERVER_URI "ipp://localhost/"
/* After a refused subscription, the next try waits this long (polling goes on meanwhile). */
#define RETRY_SEC 60

struct CupsNotify {
        sd_event *event;
        const CupsServer *server;
        char server_name[128];
        /* cupsd lets only the owner (or an admin) renew a subscription, and on its socket it
         * knows the caller by uid: the owner is named as that uid's user. */
        char user[256];
        int32_t lease_sec;
        CupsNotifyPoke poke;
        void *userdata;
        sd_bus_slot *match;
        IppCall *call;
        int32_t id;             /* cupsd's notify-subscription-id, 0 when none */
        sd_event_source *renew;
        uint64_t retry_after;   /* CLOCK_MONOTONIC */
        int last_error;         /* so that a lasting refusal is logged once */
};

CupsNotify *cups_notify_free(CupsNotify *n) {
        if (!n)
                return NULL;
        ipp_call_free(n->call);
        sd_event_source_disable_unref(n->renew);
        sd_bus_slot_unref(n->match);
        free(n);
        return NULL;
}

bool cups_notify_subscribed(const CupsNotify *n) {
        return n && n->id > 0;
}

bool cups_notify_subscribing(const CupsNotify *n) {
        return n && n->call && n->id == 0;
}

static int on_signal(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        CupsNotify *n = userdata;
        const char *member = sd_bus_message_get_member(msg);
        /* PrinterStateChanged and the job signals change no device. ServerStarted and
         * ServerRestarted (a start with printers.conf read again, or a reload): cupsd sends no
         * PrinterDeleted for a queue taken out of its configuration meanwhile, and the
         * listing that answers it may otherwise be the safety poll's, a minute or more away. */
        if (streq_ptr(member, "PrinterAdded") || streq_ptr(member, "PrinterDeleted") ||
            streq_ptr(member, "PrinterModified") || streq_ptr(member, "ServerStarted") ||
            streq_ptr(member, "ServerRestarted")) {
                log_debug("cupsd's notifier: %s", member);
                n->poke(n->userdata);
        }
        return 0;
}

int cups_notify_new(sd_event *event, sd_bus *bus, const CupsServer *server, const char *server_name,
                    int32_t lease_sec, CupsNotifyPoke poke, void *userdata, CupsNotify **ret) {
        assert(lease_sec > 0);
        CupsNotify *n = calloc(1, sizeof *n);
        if (!n)
                return -ENOMEM;
        n->event = event;
        n->server = server;
        snprintf(n->server_name, sizeof n->server_name, "%s", server_name);
        struct passwd pw, *res = NULL;
        char buf[4096];
        if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) != 0 || !res)
                res = NULL;
        snprintf(n->user, sizeof n->user, "%s", res ? pw.pw_name : "tinctd");
        n->lease_sec = lease_sec;
        n->poke = poke;
        n->userdata = userdata;
        if (bus) {
                int r = sd_bus_match_signal_async(bus, &n->match, NULL, NOTIFIER_PATH, NOTIFIER_INTERFACE, NULL,
                                                  on_signal, NULL, n);
                if (r < 0) {
                        cups_notify_free(n);
                        return r;
                }
        }
        *ret = n;
        return 0;
}

/* An IPP answer's failure as an errno-style code for the one-line rule: the transport's,
 * or EPROTO for a status that is not successful-ok (or -ignored-or-substituted). */
static int answer_error(int error, const IppMessage *msg) {
        if (error < 0)
                return error;
        return msg->status > 0x00ff ? -EPROTO : 0;
}

static void lost(CupsNotify *n, int error, const IppMessage *msg, const char *what) {
        uint64_t now_usec = 0;
        if (error != n->last_error)
                log_warning_errno(error, "Cannot %s cupsd's D-Bus notifier at %s (IPP status 0x%04x): %m; listing "
                                  "its queues every %d s", what, n->server_name, msg ? msg->status : 0,
                                  CUPS_POLL_SEC);
        n->last_error = error;
        bool was = n->id > 0;
        n->id = 0;
        (void) sd_event_source_set_enabled(n->renew, SD_EVENT_OFF);
        (void) sd_event_now(n->event, CLOCK_MONOTONIC, &now_usec);
        n->retry_after = now_usec + RETRY_SEC * 1000000ULL;
        if (was)
                n->poke(n->userdata); /* its listing picks the fast period again */
}

static int on_renew_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void subscribed(CupsNotify *n, int32_t id) {
        if (n->id == 0)
                log_info("cupsd at %s notifies queue changes over D-Bus (subscription %d)", n->server_name, id);
        n->id = id;
        n->last_error = 0;
        uint64_t half = (uint64_t) n->lease_sec * 1000000ULL / 2;
        int r = n->renew ? sd_event_source_set_time_relative(n->renew, half)
                         : sd_event_add_time_relative(n->event, &n->renew, CLOCK_MONOTONIC, half, 0, on_renew_timer, n);
        if (r >= 0)
                r = sd_event_source_set_enabled(n->renew, SD_EVENT_ONESHOT);
        if (r < 0) {
                /* Without renewal the lease would end unnoticed: keep polling instead. */
                log_warning_errno(r, "Cannot time the renewal of the cupsd subscription: %m");
                n->id = 0;
        }
}

static void on_created(IppCall *call, int error, IppMessage *msg, void *userdata) {
        CupsNotify *n = userdata;
        assert(call == n->call);
        n->call = ipp_call_free(n->call);
        int r = answer_error(error, msg);
        int32_t id = 0, status = 0;
        for (size_t i = 0; r >= 0 && i < msg->n_groups; i++)
                if (msg->groups[i].tag == IPP_TAG_SUBSCRIPTION) {
                        (void) ipp_attr_integer(ipp_group_find(&msg->groups[i], "notify-subscription-id"), 0, &id);
                        /* RFC 3995 §11.1.2: a subscription refused alone has its own status. */
                        (void) ipp_attr_integer(ipp_group_find(&msg->groups[i], "notify-status-code"), 0, &status);
                }
        if (r >= 0 && id <= 0) {
                r = -EBADMSG;
                if (status > 0)
                        msg->status = (uint16_t) status;
        }
        if (r < 0)
                lost(n, r, msg, "subscribe to");
        else
                subscribed(n, id);
        if (msg)
                ipp_message_done(msg);
        /* Either way the source lists the queues now: a queue that changed since its last
         * listing sent us no signal, and it waited for this outcome to pick its period. */
        n->poke(n->userdata);
}

static void subscribe(CupsNotify *n) {
        const IppRequestAttr attrs[] = {
                { IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", n->user, 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_URI, "notify-recipient-uri", "dbus://", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, "notify-events", "printer-added", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, "printer-deleted", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, "printer-modified", 0 },
                /* The subscription outlives a cupsd restart (subscriptions.conf): these come
                 * from the new cupsd, which may have lost queues while it was stopped. */
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, "server-started", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, "server-restarted", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_INTEGER, "notify-lease-duration", NULL, n->lease_sec },
        };
        int r = ipp_call_start(n->event, n->server, IPP_OP_CREATE_PRINTER_SUBSCRIPTIONS, SERVER_URI, NULL, attrs,
                               ELEMENTSOF(attrs), CUPS_CALL_TIMEOUT_SEC * 1000000ULL, on_created, n, &n->call);
        if (r < 0)
                lost(n, r, NULL, "subscribe to");
}

static void on_renewed(IppCall *call, int error, IppMessage *msg, void *userdata) {
        CupsNotify *n = userdata;
        assert(call == n->call);
        n->call = ipp_call_free(n->call);
        int r = answer_error(error, msg);
        if (msg)
                ipp_message_done(msg);
        if (r >= 0) {
                subscribed(n, n->id);
                return;
        }
        /* cupsd lost it (a restart with its state gone): a new one at once. */
        log_info("cupsd at %s did not renew subscription %d; subscribing again", n->server_name, n->id);
        n->id = 0;
        subscribe(n);
}

static int on_renew_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        CupsNotify *n = userdata;
        if (n->call || n->id <= 0)
                return 0;
        const IppRequestAttr attrs[] = {
                { IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", n->user, 0 },
                { IPP_TAG_OPERATION, IPP_TAG_INTEGER, "notify-subscription-id", NULL, n->id },
                { IPP_TAG_OPERATION, IPP_TAG_INTEGER, "notify-lease-duration", NULL, n->lease_sec },
        };
        int r = ipp_call_start(n->event, n->server, IPP_OP_RENEW_SUBSCRIPTION, SERVER_URI, NULL, attrs,
                               ELEMENTSOF(attrs), CUPS_CALL_TIMEOUT_SEC * 1000000ULL, on_renewed, n, &n->call);
        if (r < 0)
                lost(n, r, NULL, "renew the subscription to");
        return 0;
}

void cups_notify_cupsd_answers(CupsNotify *n, bool answers) {
        uint64_t now_usec = 0;
        if (!n)
                return;
        if (!answers) {
                /* It may come back without our subscription (its state lost): make a new
                 * one when it answers; an old one that survived ends with its lease. */
                n->id = 0;
                n->call = ipp_call_free(n->call);
                (void) sd_event_source_set_enabled(n->renew, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_now(n->event, CLOCK_MONOTONIC, &now_usec);
        if (!n->match || n->id > 0 || n->call || now_usec < n->retry_after)
                return;
        subscribe(n);
}
