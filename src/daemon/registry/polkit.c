/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "polkit.h"

#include <stdlib.h>
#include <string.h>

#include "bus-order.h"
#include "log.h"

typedef struct PendingAuth {
        Manager *manager;
        ListLink link;
        BusCall *call;      /* the method call being authorized */
        sd_bus_slot *slot;
        char *action;
        BusDomain domain;
        AuthContinuation cont;
} PendingAuth;

static PendingAuth *pending_free(PendingAuth *p) {
        if (!p)
                return NULL;
        list_unlink(&p->manager->pending_auths, &p->link);
        sd_bus_slot_unref(p->slot);
        bus_call_free(p->call);
        free(p->action);
        free(p);
        return NULL;
}

static void run_continuation(Manager *m, sd_bus_message *msg, AuthContinuation cont, Client *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd_bus_message_rewind(msg, true);
        if (r >= 0)
                r = cont(msg, m, c, &error);
        if (r < 0) {
                if (sd_bus_error_is_set(&error))
                        (void) sd_bus_reply_method_error(msg, &error);
                else
                        (void) sd_bus_reply_method_errno(msg, r, NULL);
        }
}

static int on_check_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        PendingAuth *p = userdata;
        Manager *m = p->manager;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int authorized = 0, challenge = 0;

        if (e) {
                bus_error_set(&error, p->domain, BUS_ERR_FAILED_TO_AUTHENTICATE,
                              "could not check %s for auth: %s: %s", p->action, e->name, strempty(e->message));
                goto deny;
        }
        int r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0) {
                bus_error_set(&error, p->domain, BUS_ERR_FAILED_TO_AUTHENTICATE,
                              "could not check %s for auth: malformed reply", p->action);
                goto deny;
        }
        if (!authorized) {
                bus_error_set(&error, p->domain, BUS_ERR_FAILED_TO_AUTHENTICATE,
                              "failed to obtain %s auth", p->action);
                goto deny;
        }

        /* The caller may have left while we waited: then its identity lookup fails. */
        Client *c;
        if (manager_get_client(m, p->call->msg, &c) < 0) {
                bus_error_set(&error, p->domain, BUS_ERR_FAILED_TO_AUTHENTICATE, "could not get uid of caller");
                goto deny;
        }
        /* Kept until the continuation has run: one that answers later keeps the call again
         * first, so the caller's next calls go on waiting (bus-order.h). */
        BusCall *call = TAKE_PTR(p->call);
        AuthContinuation cont = p->cont;
        pending_free(p);
        c->authorized = true;
        run_continuation(m, call->msg, cont, c);
        bus_call_free(call);
        return 0;

deny:
        log_debug("Denied %s to %s: %s", p->action, strempty(sd_bus_message_get_sender(p->call->msg)), error.message);
        (void) sd_bus_reply_method_error(p->call->msg, &error);
        pending_free(p);
        return 0;
}

static int authorize(Manager *m, sd_bus_message *msg, const char *action, BusDomain domain, bool temp, uid_t owner,
                     AuthContinuation cont, sd_bus_error *error) {
        Client *c;
        int r = manager_get_client(m, msg, &c);
        if (r < 0)
                return bus_error_set(error, domain, BUS_ERR_FAILED_TO_AUTHENTICATE, "could not get uid of caller");

        bool own_temp = temp && (owner == POLKIT_CALLER || owner == c->uid);
        if (c->uid == 0 || c->uid == m->daemon_uid || own_temp) {
                r = sd_bus_message_rewind(msg, true);
                if (r < 0)
                        return r;
                c->authorized = c->uid == 0 || c->uid == m->daemon_uid;
                return cont(msg, m, c, error);
        }

        if (m->pending_auths.size >= LIMIT_PENDING_AUTH)
                return bus_error_set(error, domain, BUS_ERR_FAILED_TO_AUTHENTICATE,
                                     "too many pending authorization checks");

        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        r = sd_bus_message_new_method_call(m->bus, &call, "org.freedesktop.PolicyKit1",
                                           "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
        if (r >= 0)
                r = sd_bus_message_append(call, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s",
                                          sd_bus_message_get_sender(msg), action, 0,
                                          (uint32_t) 1 /* AllowUserInteraction */, "");
        if (r < 0)
                return r;

        PendingAuth *p = calloc(1, sizeof *p);
        if (!p)
                return -ENOMEM;
        p->manager = m;
        p->domain = domain;
        p->cont = cont;
        p->call = bus_call_keep(m->bus_order, msg);
        p->action = strdup(action);
        list_append(&m->pending_auths, &p->link);
        if (!p->call || !p->action) {
                pending_free(p);
                return -ENOMEM;
        }
        r = sd_bus_call_async(m->bus, &p->slot, call, on_check_reply, p, m->config.polkit_timeout_usec);
        if (r < 0) {
                pending_free(p);
                return bus_error_set(error, domain, BUS_ERR_FAILED_TO_AUTHENTICATE,
                                     "could not check %s for auth: %s", action, strerror(-r));
        }
        return 1;
}

void polkit_cancel_all(Manager *m) {
        while (m->pending_auths.size > 0)
                pending_free(list_entry(m->pending_auths.head.next, PendingAuth, link));
}

int polkit_authorize(Manager *m, sd_bus_message *msg, const char *action, BusDomain domain,
                     AuthContinuation cont, sd_bus_error *error) {
        return authorize(m, msg, action, domain, false, 0, cont, error);
}

int polkit_authorize_object(Manager *m, sd_bus_message *msg, const char *action, BusDomain domain, bool temp,
                            uid_t owner, AuthContinuation cont, sd_bus_error *error) {
        return authorize(m, msg, action, domain, temp, owner, cont, error);
}
