/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intrusive doubly linked list: O(1) unlink, creation order kept for GetDevices et al. */
#pragma once

#include <assert.h>
#include <stddef.h>

typedef struct ListLink {
        struct ListLink *prev, *next;
} ListLink;

typedef struct List {
        ListLink head; /* sentinel */
        size_t size;
} List;

static inline void list_init(List *l) {
        l->head.prev = l->head.next = &l->head;
        l->size = 0;
}

static inline void list_append(List *l, ListLink *n) {
        assert(!n->next && !n->prev); /* a node is in at most one list (unlinking clears it) */
        n->prev = l->head.prev;
        n->next = &l->head;
        l->head.prev->next = n;
        l->head.prev = n;
        l->size++;
}

static inline void list_unlink(List *l, ListLink *n) {
        if (!n->next)
                return;
        assert(l->size > 0 && n->prev);
        n->prev->next = n->next;
        n->next->prev = n->prev;
        n->prev = n->next = NULL;
        l->size--;
}

#define list_entry(link, type, member) ((type *) ((char *) (link) - offsetof(type, member)))

/* Iterate over entries; `tmp` allows unlinking the current entry. */
#define LIST_FOREACH(l, it, type, member)                                     \
        for (ListLink *_l_ = (l)->head.next, *_n_ = _l_->next;                \
             _l_ != &(l)->head && ((it) = list_entry(_l_, type, member), 1);  \
             _l_ = _n_, _n_ = _l_->next)
