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
/* The cancellation at exit may delay the daemon's stop by at most this much. */
#define CANCEL_AT_EXIT_SEC 2
/* Earlier subscriptions of ours cancelled after one Get-Subscriptions; more end with their
 * lease (each restart adds at most one). */
#define MAX_STALE 32
#define IPP_STATUS_NOT_FOUND 0x0406

/* What tinct subscribes to: also how an earlier tinctd's subscription is recognised. */
static const char *const EVENTS[] = {
        "printer-added", "printer-deleted", "printer-modified",
        /* The subscription outlives a cupsd restart (subscriptions.conf): these come
         * from the new cupsd, which may have lost queues while it was stopped. */
        "server-started", "server-restarted",
};

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
        /* The sweep of earlier subscriptions of ours (a crashed or killed tinctd's). */
        IppCall *sweep;
        int32_t stale[MAX_STALE];
        size_t n_stale;
        sd_event_source *renew;
        uint64_t retry_after;   /* CLOCK_MONOTONIC */
        int last_error;         /* so that a lasting refusal is logged once */
};

static void cancel_at_exit(CupsNotify *n);

CupsNotify *cups_notify_free(CupsNotify *n) {
        if (!n)
                return NULL;
        ipp_call_free(n->call);
        ipp_call_free(n->sweep);
        if (n->id > 0)
                cancel_at_exit(n);
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

static const IppRequestAttr *cancel_attrs(const CupsNotify *n, int32_t id, IppRequestAttr attrs[static 2]) {
        attrs[0] = (IppRequestAttr) { IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", n->user, 0 };
        attrs[1] = (IppRequestAttr) { IPP_TAG_OPERATION, IPP_TAG_INTEGER, "notify-subscription-id", NULL, id };
        return attrs;
}

static void on_cancelled_at_exit(IppCall *call, int error, IppMessage *msg, void *userdata) {
        int *result = userdata;
        *result = answer_error(error, msg);
        if (msg)
                ipp_message_done(msg);
}

/* Without this cupsd would keep the subscription, and run its notifier for it, until the
 * lease ends. On a loop of its own, because the daemon's has ended; bounded, because
 * a stop must not wait for a cupsd that does not answer. */
static void cancel_at_exit(CupsNotify *n) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        IppRequestAttr attrs[2];
        IppCall *call = NULL;
        int result = 1; /* the answer's, once it came */
        int r = sd_event_new(&e);
        if (r >= 0)
                r = ipp_call_start(e, n->server, IPP_OP_CANCEL_SUBSCRIPTION, SERVER_URI, NULL, cancel_attrs(n, n->id, attrs),
                                   ELEMENTSOF(attrs), CANCEL_AT_EXIT_SEC * 1000000ULL, on_cancelled_at_exit, &result,
                                   &call);
        while (r >= 0 && result > 0)
                r = sd_event_run(e, UINT64_MAX);
        ipp_call_free(call);
        if (r >= 0)
                r = result;
        if (r < 0)
                log_notice_errno(r, "Cannot cancel subscription %d with cupsd at %s: %m; it ends with its lease",
                                 n->id, n->server_name);
        else
                log_info("Cancelled subscription %d with cupsd at %s", n->id, n->server_name);
        n->id = 0;
}

/* An earlier tinctd's subscription (one that crashed or was killed): the same owner (asked
 * with my-subscriptions), recipient and events. Pure. */
static bool earlier_own(const IppGroup *g, int32_t current) {
        int32_t id = 0;
        _cleanup_free_ char *recipient = NULL;
        const IppAttr *events = ipp_group_find(g, "notify-events");
        if (ipp_attr_integer(ipp_group_find(g, "notify-subscription-id"), 0, &id) < 0 || id <= 0 || id == current)
                return false;
        if (ipp_attr_string(ipp_group_find(g, "notify-recipient-uri"), 0, &recipient) < 0 ||
            !streq(recipient, "dbus://"))
                return false;
        if (!events || events->n_values != ELEMENTSOF(EVENTS))
                return false;
        for (size_t i = 0; i < events->n_values; i++) {
                _cleanup_free_ char *event = NULL;
                if (ipp_attr_string(events, i, &event) < 0)
                        return false;
                bool known = false;
                for (size_t j = 0; j < ELEMENTSOF(EVENTS); j++)
                        known = known || streq(event, EVENTS[j]);
                if (!known)
                        return false;
        }
        return true;
}

static void cancel_next_stale(CupsNotify *n);

static void on_stale_cancelled(IppCall *call, int error, IppMessage *msg, void *userdata) {
        CupsNotify *n = userdata;
        assert(call == n->sweep);
        n->sweep = ipp_call_free(n->sweep);
        int r = answer_error(error, msg);
        if (msg)
                ipp_message_done(msg);
        if (r < 0)
                log_debug_errno(r, "Cannot cancel an earlier subscription with cupsd at %s: %m", n->server_name);
        cancel_next_stale(n);
}

static void cancel_next_stale(CupsNotify *n) {
        while (n->n_stale > 0) {
                int32_t id = n->stale[--n->n_stale];
                IppRequestAttr attrs[2];
                log_info("Cancelling subscription %d with cupsd at %s, an earlier tinctd's", id, n->server_name);
                int r = ipp_call_start(n->event, n->server, IPP_OP_CANCEL_SUBSCRIPTION, SERVER_URI, NULL,
                                       cancel_attrs(n, id, attrs), ELEMENTSOF(attrs), CUPS_CALL_TIMEOUT_SEC * 1000000ULL,
                                       on_stale_cancelled, n, &n->sweep);
                if (r >= 0)
                        return;
                log_debug_errno(r, "Cannot cancel subscription %d: %m", id);
        }
}

static void on_subscriptions(IppCall *call, int error, IppMessage *msg, void *userdata) {
        CupsNotify *n = userdata;
        assert(call == n->sweep);
        n->sweep = ipp_call_free(n->sweep);
        int r = answer_error(error, msg);
        n->n_stale = 0;
        /* client-error-not-found: we have none (not even the one just made, if it went). */
        if (r < 0 && !(msg && msg->status == IPP_STATUS_NOT_FOUND))
                log_debug_errno(r, "Cannot list our subscriptions with cupsd at %s: %m", n->server_name);
        for (size_t i = 0; r >= 0 && i < msg->n_groups && n->n_stale < MAX_STALE; i++)
                if (msg->groups[i].tag == IPP_TAG_SUBSCRIPTION && earlier_own(&msg->groups[i], n->id))
                        (void) ipp_attr_integer(ipp_group_find(&msg->groups[i], "notify-subscription-id"), 0,
                                                &n->stale[n->n_stale++]);
        if (msg)
                ipp_message_done(msg);
        cancel_next_stale(n);
}

/* A tinctd that crashed or was killed left its subscription (and cupsd's notifier for it)
 * until its lease ends: after each new one, the earlier ones of ours go. */
static void sweep(CupsNotify *n) {
        static const char *const requested[] = {
                "notify-subscription-id", "notify-recipient-uri", "notify-events", NULL,
        };
        const IppRequestAttr attrs[] = {
                { IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", n->user, 0 },
                { IPP_TAG_OPERATION, IPP_TAG_BOOLEAN, "my-subscriptions", NULL, 1 },
        };
        if (n->sweep)
                return;
        int r = ipp_call_start(n->event, n->server, IPP_OP_GET_SUBSCRIPTIONS, SERVER_URI, requested, attrs,
                               ELEMENTSOF(attrs), CUPS_CALL_TIMEOUT_SEC * 1000000ULL, on_subscriptions, n, &n->sweep);
        if (r < 0)
                log_debug_errno(r, "Cannot list our subscriptions with cupsd at %s: %m", n->server_name);
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
        else {
                subscribed(n, id);
                sweep(n);
        }
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
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, "notify-events", EVENTS[0], 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, EVENTS[1], 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, EVENTS[2], 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, EVENTS[3], 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, EVENTS[4], 0 },
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
