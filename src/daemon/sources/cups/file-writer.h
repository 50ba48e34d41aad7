/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write_file_atomic() off the event loop: each request is written, fsync'd and renamed into
 * place by a thread of its own, and its answer comes back through the loop (an eventfd), so
 * a large durable write (a printer's 4 MB vendor profile, bench/bench-printer.py) delays no
 * client (docs/sandbox.md, "Who waits"). The daemon is otherwise single-threaded: the thread
 * shares nothing but its request, which it reads until it signals and the loop never touches
 * meanwhile (see file-writer.c). Not here: what is written where, quotas, any parse. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "fileio.h"

typedef struct FileWrite FileWrite;

/* The answer: r as write_file_atomic() returns it; data is handed back (the callee owns it). */
typedef void (*FileWriteDone)(int r, uint8_t *data, size_t size, void *userdata);

/* Takes ownership of data (also on failure). done runs later from the event loop, never from
 * inside this call: by then the file is complete, fsync'd and at path (or path is unchanged
 * and no temporary file is left). *ret identifies the request until done runs. */
int file_write_atomic_async(sd_event *e, const char *path, uint8_t *data, size_t size, mode_t mode,
                            WriteFlags flags, FileWriteDone done, void *userdata, FileWrite **ret);

/* done will not run; a write under way is not interrupted (the file may still land at path),
 * its request is freed once it ends, or when the loop is freed (which then waits for it). */
void file_write_cancel(FileWrite *w);
