/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether a profile's Filename is a fact or only its creator's word (docs/compatibility.md,
 * "CreateProfileWithFd's Filename is checked"). CreateProfileWithFd takes the bytes from an
 * fd and the Filename from the caller: where the daemon can stat that path it must be the
 * passed file (same device and inode), else the call is refused; where it cannot (a home
 * directory it may not read, which is the rule when it runs confined), the Filename is
 * recorded as the caller's claim and answers lookups by file name only from that caller.
 * Not here: reading or parsing the bytes (profile-load.c), the lookups' index (manager.c). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "profile.h"

/* p->filename (set from the call's properties) against the passed fd. trusted: root and the
 * daemon's own user, whose word stands where nothing can be checked. Sets
 * p->filename_claimed; a Filename that names another file is InputInvalid. */
int profile_claim_check_fd(Profile *p, int fd, bool trusted, sd_bus_error *error);

/* A restored disk profile has no fd any more: its Filename stands if the file there still
 * holds the stored bytes, else it is its owner's claim (trusted owners excepted). */
void profile_claim_check_restored(Profile *p, bool trusted);

/* Whether lookups by file name from uid may answer with p: a checked Filename answers
 * everybody, a claim only its creator. */
bool profile_filename_answers(const Profile *p, uid_t uid);
