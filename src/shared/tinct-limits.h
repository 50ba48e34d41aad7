/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every bound on what a client or a file can make tinct hold, in one place (the daemon, the
 * parser process, tinct-session and the tools read them from here). Each one is documented in
 * docs/compatibility.md and tested at its edge. Constants only: the parsers include it too. */
#pragma once

/* What a client can create over the bus (colord §16.25 asks for bounds). uid 0 is exempt from
 * the per-uid object limit. */
#define LIMIT_KEY_LEN 256
#define LIMIT_VALUE_LEN 4096
#define LIMIT_ID_LEN 4096
#define LIMIT_METADATA_ENTRIES 128
#define LIMIT_OBJECTS_PER_UID 1024
#define LIMIT_QUALIFIERS 64
#define LIMIT_PENDING_AUTH 256
/* One connection's calls waiting for its earlier call's answer (bus-order.h). The bus already
 * bounds a client's calls awaiting a reply (dbus-daemon's max_replies_per_connection); calls
 * that expect none it does not count. */
#define LIMIT_HELD_CALLS 256
/* Client calls waiting for their profile's parse (profile-load.h): each holds up to
 * ICC_MAX_FILE_SIZE bytes, and one user's slow files must leave room for everyone else. */
#define LIMIT_PENDING_LOADS 64
#define LIMIT_PENDING_LOADS_PER_UID 8
/* CreateProfileWithFd's arguments as read from the wire (two strings and a dict, each already
 * bounded above): far beyond what the bounds allow, far below what could hurt. */
#define LIMIT_CREATE_ARGS_WIRE (2u * 1024 * 1024)

/* The files of printers' vendor profiles in <state>/printers/, all printers together
 * (docs/printers.md): one printer's answer is capped by tinct-fetch (16 profiles, 64 MiB),
 * but every network printer cups-browsed makes a queue for is one more. 256 files is 16
 * printers offering the most profiles one answer may carry; 128 MiB two printers at the
 * helper's cap, dozens with real vendor profiles (a few MiB each). A profile beyond either
 * is not kept (one log line); the printers already served keep theirs. */
#define LIMIT_PRINTER_FILES 256
#define LIMIT_PRINTER_FILES_BYTES (128ull * 1024 * 1024)

/* SANE listings (docs/scanners.md, "Rescan on demand"): each runs the helper, its backends
 * and one request to every configured eSCL scanner, and anyone may ask for one. At most
 * this many start in any minute, whoever asks (Rescan, udev events, the start); callers in
 * between get the last listing's result. And how many Rescan callers wait at a time. */
#define LIMIT_SCANNER_RESCANS_PER_MINUTE 6
#define LIMIT_SCANNER_RESCAN_WAITERS 64

/* Verification results a user records on their own devices (docs/verify.md): the store
 * keeps those of the user's this many devices verified last (each device's newest 32 per
 * source, STORE_VERIFICATIONS_KEPT), so ids made up in a loop cannot fill the disk. A
 * user's displays are a few; a monitor unplugged for good leaves after 8 others. */
#define LIMIT_VERIFIED_DEVICES_PER_UID 8

/* The other records a user makes the store keep without authorization, each under ids of
 * their choosing (up to LIMIT_ID_LEN), so that a loop of temp objects cannot fill the disk
 * (docs/compatibility.md row 79). Each uid's newest this many
 * are kept, the oldest written going first; root's (the system's) are not capped:
 * - hard choices (AddProfile, RemoveProfile's removals, MakeProfileDefault) on the user's
 *   own temp devices: the user's layer of mappings. A user's monitors are a few, each with
 *   a few profiles tried;
 * - profile titles the user set (Profile.SetProperty Title, anyone's profile);
 * - Enabled flags the user set on their own temp devices. */
#define LIMIT_MAPPINGS_PER_UID 64
#define LIMIT_TITLES_PER_UID 64
#define LIMIT_ENABLED_FLAGS_PER_UID 64

/* The largest ICC file any part of tinct reads or parses (daemon, parser process, session
 * helper). The biggest real profiles are CMYK/n-colour LUT profiles of ~10-20 MiB (large
 * grids, 16-bit tables, three intents); 32 MiB leaves room above them, and a file over it is
 * refused from its size (fstat) before a byte is read (docs/sandbox.md). */
#define ICC_MAX_FILE_SIZE (32u * 1024 * 1024)

/* The most records a profile's 'meta' dict may have: the daemon keeps at most
 * LIMIT_METADATA_ENTRIES metadata entries per object, real profiles carry a few dozen
 * (colord's own generators write under 20). Checked on the record count before lcms2 reads
 * the dict, so a crafted dict costs nothing (docs/sandbox.md, compatibility.md row 22). */
#define ICC_MAX_METADATA_ENTRIES ((unsigned) LIMIT_METADATA_ENTRIES)
