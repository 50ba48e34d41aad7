/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Holds a sender's later messages while one of its calls is kept (bus-order.h). An sd-bus
 * filter sees every message before any object vtable or match does; it takes the messages
 * that must wait and returns them to sd-bus's read queue (sd_bus_enqueue_for_read()) once
 * the sender has no call kept, one at a time: the next goes only after the one before was
 * dispatched (a deferred event source runs after the dispatch), since that one may be kept
 * in turn. Not here: what any method does; the handlers say which calls they keep. */
#include "bus-order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "list.h"
#include "log.h"
#include "tinct-limits.h"

/* One sender that has a call kept or messages waiting. */
typedef struct SenderQueue {
        char *name;                 /* unique name; key in BusOrder.senders */
        unsigned n_kept;            /* BusCalls alive for its calls */
        sd_bus_message **held;      /* waiting, oldest first; one reference each */
        size_t n_held, cap;
        sd_bus_message *in_flight;  /* handed back to sd-bus, not seen by the filter yet (referenced) */
        ListLink ready;             /* in BusOrder.ready: nothing kept, messages waiting */
} SenderQueue;

struct BusOrder {
        sd_bus *bus;
        sd_bus_slot *filter;
        sd_event_source *resume;
        Hashmap *senders;
        List ready;
        BusPrepare prepare;
        void *prepare_userdata;
};

static SenderQueue *queue_free(BusOrder *o, SenderQueue *q) {
        if (!q)
                return NULL;
        hashmap_remove_value(o->senders, q->name, q);
        list_unlink(&o->ready, &q->ready);
        for (size_t i = 0; i < q->n_held; i++)
                sd_bus_message_unref(q->held[i]);
        free(q->held);
        sd_bus_message_unref(q->in_flight);
        free(q->name);
        free(q);
        return NULL;
}

static void queue_maybe_free(BusOrder *o, SenderQueue *q) {
        if (q->n_kept == 0 && q->n_held == 0 && !q->in_flight)
                queue_free(o, q);
}

static SenderQueue *queue_get(BusOrder *o, const char *name) {
        SenderQueue *q = hashmap_get(o->senders, name);
        if (q)
                return q;
        q = calloc(1, sizeof *q);
        if (!q)
                return NULL;
        q->name = strdup(name);
        if (!q->name || hashmap_put(o->senders, q->name, q) < 0) {
                free(q->name);
                free(q);
                return NULL;
        }
        return q;
}

/* Schedules the next waiting message of q, if q may go on. */
static void queue_mark_ready(BusOrder *o, SenderQueue *q) {
        if (q->n_kept > 0 || q->n_held == 0 || q->in_flight || q->ready.next)
                return;
        list_append(&o->ready, &q->ready);
        (void) sd_event_source_set_enabled(o->resume, SD_EVENT_ONESHOT);
}

/* Takes a reference to m into q's queue, at the front (a message that came back too early)
 * or at the back. */
static int queue_hold(SenderQueue *q, sd_bus_message *m, bool front) {
        if (q->n_held == q->cap) {
                size_t n = q->cap ? q->cap * 2 : 4;
                sd_bus_message **t = reallocarray(q->held, n, sizeof *t);
                if (!t)
                        return -ENOMEM;
                q->held = t;
                q->cap = n;
        }
        if (front) {
                memmove(q->held + 1, q->held, q->n_held * sizeof *q->held);
                q->held[0] = sd_bus_message_ref(m);
        } else
                q->held[q->n_held] = sd_bus_message_ref(m);
        q->n_held++;
        return 0;
}

static int on_resume(sd_event_source *s, void *userdata) {
        BusOrder *o = userdata;
        while (o->ready.size > 0) {
                SenderQueue *q = list_entry(o->ready.head.next, SenderQueue, ready);
                list_unlink(&o->ready, &q->ready);
                if (q->n_kept > 0 || q->n_held == 0 || q->in_flight)
                        continue;
                sd_bus_message *m = q->held[0];
                memmove(q->held, q->held + 1, --q->n_held * sizeof *q->held);
                int r = sd_bus_enqueue_for_read(o->bus, m);
                if (r < 0) {
                        /* Only when the connection is closing or out of memory. */
                        log_warning_errno(r, "Cannot dispatch a call of %s that waited for its earlier one: %m",
                                          q->name);
                        if (sd_bus_message_is_method_call(m, NULL, NULL) > 0)
                                (void) sd_bus_reply_method_errno(m, r, NULL);
                        sd_bus_message_unref(m);
                        queue_mark_ready(o, q);
                        queue_maybe_free(o, q);
                        continue;
                }
                q->in_flight = m; /* our reference, until the filter sees it again */
        }
        return 0;
}

/* Whose order m belongs to: the sender of a method call, or the client a NameOwnerChanged
 * says has left (its calls came before that signal). NULL: not ordered. */
static const char *order_key(sd_bus_message *m) {
        if (sd_bus_message_is_method_call(m, NULL, NULL) > 0)
                return sd_bus_message_get_sender(m);
        if (sd_bus_message_is_signal(m, "org.freedesktop.DBus", "NameOwnerChanged") <= 0 ||
            !streq_ptr(sd_bus_message_get_sender(m), "org.freedesktop.DBus"))
                return NULL;
        const char *name, *old_owner, *new_owner;
        int r = sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner);
        (void) sd_bus_message_rewind(m, true);
        if (r < 0 || name[0] != ':' || !isempty(new_owner))
                return NULL;
        return name;
}

/* m is about to be dispatched: 0, or 1 when the prepare hook kept it for later. */
static int dispatch(BusOrder *o, sd_bus_message *m) {
        if (!o->prepare || sd_bus_message_is_method_call(m, NULL, NULL) <= 0)
                return 0;
        return o->prepare(m, o->prepare_userdata) > 0;
}

static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        BusOrder *o = userdata;
        const char *key = order_key(m);
        SenderQueue *q = key ? hashmap_get(o->senders, key) : NULL;
        if (!q)
                return dispatch(o, m); /* nothing of this sender pending: now */

        if (q->in_flight == m) {
                q->in_flight = NULL;
                if (q->n_kept > 0) {
                        /* A continuation kept a call again before this one came back. */
                        int r = queue_hold(q, m, true);
                        sd_bus_message_unref(m);
                        return r < 0 ? r : 1;
                }
                sd_bus_message_unref(m); /* sd-bus holds it while it dispatches */
                queue_mark_ready(o, q);  /* the next runs after this one's dispatch */
                queue_maybe_free(o, q);
                return dispatch(o, m);
        }
        if (q->n_kept == 0 && q->n_held == 0 && !q->in_flight) {
                queue_maybe_free(o, q);
                return dispatch(o, m);
        }
        if (q->n_held >= LIMIT_HELD_CALLS && sd_bus_message_is_method_call(m, NULL, NULL) > 0) {
                (void) sd_bus_reply_method_errorf(m, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                                  "more than %u calls waiting for an earlier call of the same client",
                                                  LIMIT_HELD_CALLS);
                return 1;
        }
        int r = queue_hold(q, m, false);
        if (r < 0)
                return r;
        return 1;
}

int bus_order_new(sd_bus *bus, sd_event *event, BusOrder **ret) {
        _cleanup_(bus_order_freep) BusOrder *o = calloc(1, sizeof *o);
        if (!o)
                return -ENOMEM;
        list_init(&o->ready);
        o->bus = sd_bus_ref(bus);
        o->senders = hashmap_new();
        if (!o->senders)
                return -ENOMEM;
        int r = sd_event_add_defer(event, &o->resume, on_resume, o);
        if (r < 0)
                return r;
        r = sd_event_source_set_enabled(o->resume, SD_EVENT_OFF);
        if (r < 0)
                return r;
        r = sd_bus_add_filter(bus, &o->filter, on_message, o);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

BusOrder *bus_order_free(BusOrder *o) {
        if (!o)
                return NULL;
        sd_bus_slot_unref(o->filter);
        sd_event_source_disable_unref(o->resume);
        if (o->senders) {
                const char *k;
                void *v;
                for (void *it = NULL; hashmap_iterate(o->senders, &it, &k, &v); it = NULL)
                        queue_free(o, v);
                hashmap_free(o->senders);
        }
        sd_bus_unref(o->bus);
        free(o);
        return NULL;
}

BusCall *bus_call_keep(BusOrder *o, sd_bus_message *msg) {
        SenderQueue *q = queue_get(o, strempty(sd_bus_message_get_sender(msg)));
        if (!q)
                return NULL;
        BusCall *c = calloc(1, sizeof *c);
        if (!c) {
                queue_maybe_free(o, q);
                return NULL;
        }
        q->n_kept++;
        *c = (BusCall) { .order = o, .msg = sd_bus_message_ref(msg) };
        return c;
}

BusCall *bus_call_free(BusCall *c) {
        if (!c)
                return NULL;
        BusOrder *o = c->order;
        SenderQueue *q = hashmap_get(o->senders, strempty(sd_bus_message_get_sender(c->msg)));
        assert(q && q->n_kept > 0); /* every BusCall counts once in its sender's queue */
        q->n_kept--;
        queue_mark_ready(o, q);
        queue_maybe_free(o, q);
        sd_bus_message_unref(c->msg);
        free(c);
        return NULL;
}

void bus_order_set_prepare(BusOrder *o, BusPrepare prepare, void *userdata) {
        o->prepare = prepare;
        o->prepare_userdata = userdata;
}

void bus_call_redispatch(BusCall *c) {
        BusOrder *o = c->order;
        SenderQueue *q = hashmap_get(o->senders, strempty(sd_bus_message_get_sender(c->msg)));
        assert(q && q->n_kept > 0);
        /* First in its sender's line: it was the one being dispatched when it was kept. */
        if (q->n_kept == 1 && !q->in_flight && sd_bus_enqueue_for_read(o->bus, c->msg) >= 0)
                q->in_flight = sd_bus_message_ref(c->msg);
        else if (queue_hold(q, c->msg, true) < 0) {
                log_oom();
                (void) sd_bus_reply_method_errno(c->msg, -ENOMEM, NULL);
        }
        bus_call_free(c);
}
