/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A profile's Warnings (colord §4.7) take several colour transforms: about a millisecond per
 * profile, nearly all of a cold start at 5000 profiles. So the startup scan registers
 * profiles without them. They are computed when first asked for (the Warnings property,
 * automatic assignment of EDID profiles), or by a background pass at idle priority (in a
 * parser process, asynchronously), and then cached with the file's other facts, so a warm
 * start has them all. Clients' profiles get theirs with their load (profile-load.c). */
#pragma once

#include "profile.h"

/* The profile's warnings, computed now if they were left for later. Never NULL; a file
 * that cannot be read any more has none (the profile watch will drop it). */
char *const *profile_warnings(Profile *p);

/* Called when a profile joins or leaves the registry: one without warnings is queued for
 * the background pass. */
void profile_warnings_queue(Profile *p);
void profile_warnings_dequeue(Profile *p);

/* Frees the background pass's event source. */
void profile_warnings_shutdown(Manager *m);
