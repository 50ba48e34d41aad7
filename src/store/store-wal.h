/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the write-ahead log beside the database holds, read before SQLite opens it (SQLite
 * drops a log it cannot use without a word). store-wal.c; store-recover.c logs the findings and keeps
 * a copy of a damaged log. docs/durability.md says what can and cannot be detected. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum StoreWalState {
        STORE_WAL_NONE,       /* no -wal and no -shm: the database was closed cleanly */
        STORE_WAL_MISSING,    /* no -wal but a -shm: the log was deleted after a crash */
        STORE_WAL_EMPTY,      /* 0 bytes: nothing pending */
        STORE_WAL_SHORT,      /* shorter than its 32-byte header: SQLite ignores it */
        STORE_WAL_BAD_HEADER, /* the header fails its checks: SQLite ignores the whole log */
        STORE_WAL_DAMAGED,    /* frames SQLite will not apply: a bad checksum, a cut frame,
                               * or a transaction without its commit frame */
        STORE_WAL_OK,         /* every frame of this log is usable */
} StoreWalState;

typedef struct StoreWalReport {
        StoreWalState state;
        uint64_t size;            /* bytes in the -wal */
        uint32_t frames_valid;    /* frames SQLite reads (salts and checksum chain hold) */
        uint32_t frames_committed; /* of those, up to the last commit: what SQLite applies */
        uint32_t frames_ignored;  /* frames of this log after the first bad one */
        bool cut;                 /* the file ends inside a frame */
} StoreWalReport;

/* Inspects the -wal and -shm beside db_path. Negative errno only when they cannot be read. */
int store_wal_check(const char *db_path, StoreWalReport *ret);
/* The same for the bytes of a -wal. */
int store_wal_inspect(const uint8_t *data, size_t size, StoreWalReport *ret);
