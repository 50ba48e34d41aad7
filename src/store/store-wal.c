/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Looks at the write-ahead log beside the database before SQLite opens it. SQLite treats a
 * log it cannot use as if it were empty, without a word: a truncated or damaged -wal, or one
 * deleted while the database was in use, loses the changes not yet copied into the main file
 * silently, and once SQLite has opened the file the evidence is overwritten. This reads the
 * log as SQLite would (the layout is SQLite's "WAL file format", written down in
 * docs/durability.md) and says what it finds; the caller logs it and keeps a copy.
 *
 * Deliberately not here: repairing anything (a frame that fails its checksum cannot be
 * trusted), logging (store-recover.c says it, it knows the context), SQLite itself. */
#include "store-wal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"

#define WAL_HEADER_SIZE 32
#define WAL_FRAME_HEADER_SIZE 24
#define WAL_MAGIC 0x377f0682u /* the low bit says how checksums read words: 1 = big-endian */
#define WAL_VERSION 3007000u
/* SQLite's own bound on a page; a log larger than this is read no further than it. */
#define WAL_MAX_PAGE_SIZE 65536u
#define WAL_MAX_READ ((uint64_t) 1 << 31)

static uint32_t be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p) {
        return (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16 | (uint32_t) p[1] << 8 | p[0];
}

/* SQLite's WAL checksum: over pairs of 32-bit words, continuing from s[0], s[1]. */
static void wal_checksum(bool big_endian, const uint8_t *data, size_t size, uint32_t s[2]) {
        for (size_t i = 0; i + 8 <= size; i += 8) {
                uint32_t x0 = big_endian ? be32(data + i) : le32(data + i);
                uint32_t x1 = big_endian ? be32(data + i + 4) : le32(data + i + 4);
                s[0] += x0 + s[1];
                s[1] += x1 + s[0];
        }
}

static bool valid_page_size(uint32_t p) {
        return p >= 512 && p <= WAL_MAX_PAGE_SIZE && (p & (p - 1)) == 0;
}

int store_wal_inspect(const uint8_t *data, size_t size, StoreWalReport *ret) {
        *ret = (StoreWalReport) { .size = size };
        if (size == 0) {
                ret->state = STORE_WAL_EMPTY;
                return 0;
        }
        if (size < WAL_HEADER_SIZE) {
                ret->state = STORE_WAL_SHORT;
                return 0;
        }
        uint32_t magic = be32(data), page_size = be32(data + 8);
        bool big_endian = magic & 1;
        uint32_t s[2] = { 0, 0 };
        wal_checksum(big_endian, data, 24, s);
        if ((magic & ~1u) != WAL_MAGIC || be32(data + 4) != WAL_VERSION || !valid_page_size(page_size) ||
            s[0] != be32(data + 24) || s[1] != be32(data + 28)) {
                ret->state = STORE_WAL_BAD_HEADER;
                ret->frames_ignored = (size - WAL_HEADER_SIZE) / (WAL_FRAME_HEADER_SIZE + 4096);
                return 0;
        }

        const uint8_t *salt = data + 16;
        size_t frame_size = WAL_FRAME_HEADER_SIZE + page_size;
        size_t off = WAL_HEADER_SIZE;
        bool broken = false;
        /* The frames SQLite uses: those whose salts match the header's and whose running
         * checksum holds, up to the last commit among them. */
        for (; off + frame_size <= size; off += frame_size) {
                const uint8_t *f = data + off;
                if (memcmp(f + 8, salt, 8) != 0)
                        break;
                uint32_t t[2] = { s[0], s[1] };
                wal_checksum(big_endian, f, 8, t);
                wal_checksum(big_endian, f + WAL_FRAME_HEADER_SIZE, page_size, t);
                if (t[0] != be32(f + 16) || t[1] != be32(f + 20)) {
                        broken = true;
                        break;
                }
                s[0] = t[0];
                s[1] = t[1];
                ret->frames_valid++;
                if (be32(f + 4) != 0) /* database size after a commit: this frame ends one */
                        ret->frames_committed = ret->frames_valid;
        }
        /* What follows: stale frames of an earlier generation of the log (other salts) are
         * normal; frames of this generation that SQLite will not reach are not. */
        for (size_t o = off + (broken ? frame_size : 0); o + frame_size <= size; o += frame_size)
                if (memcmp(data + o + 8, salt, 8) == 0)
                        ret->frames_ignored++;
        if (broken)
                ret->frames_ignored++;
        /* A part of a frame at the end: the log was cut (or a crash stopped the write). */
        ret->cut = !broken && off + frame_size > size && off < size;
        ret->state = ret->frames_ignored > 0 || ret->cut || ret->frames_valid > ret->frames_committed ?
                STORE_WAL_DAMAGED : STORE_WAL_OK;
        return 0;
}

int store_wal_check(const char *db_path, StoreWalReport *ret) {
        _cleanup_free_ char *wal = NULL, *shm = NULL;
        if (asprintf(&wal, "%s-wal", db_path) < 0 || asprintf(&shm, "%s-shm", db_path) < 0)
                return -ENOMEM;
        struct stat st;
        if (stat(wal, &st) < 0) {
                if (errno != ENOENT)
                        return -errno;
                *ret = (StoreWalReport) { .state = STORE_WAL_NONE };
                /* SQLite deletes both at a clean close; a -shm alone means the log went while
                 * the database was in use, or after a crash. */
                if (stat(shm, &st) >= 0 && stat(db_path, &st) >= 0)
                        ret->state = STORE_WAL_MISSING;
                return 0;
        }
        if (!S_ISREG(st.st_mode))
                return -EBADF;
        _cleanup_free_ uint8_t *data = NULL;
        size_t size = 0;
        int r = read_file_capped(wal, WAL_MAX_READ, READ_REGULAR_ONLY, &data, &size, NULL);
        if (r < 0)
                return r;
        return store_wal_inspect(data, size, ret);
}
