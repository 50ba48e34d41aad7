/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What ArgyllCMS's `spotread` says, read line by line: the pure half of the argyll sensor
 * driver (sensor-argyll.c), unit-tested alone (docs/colord-behaviour.md, "Sensors"). */
#pragma once

typedef enum SpotreadEvent {
        SPOTREAD_OTHER,
        SPOTREAD_PROMPT,            /* "Place instrument on spot to be measured": wants a key */
        SPOTREAD_CALIBRATED,        /* "Calibration complete" */
        SPOTREAD_RESULT,            /* " Result is XYZ: X Y Z, ...": the reading */
        SPOTREAD_INIT_FAILED,       /* the instrument did not answer */
        SPOTREAD_NEEDS_SURFACE,     /* the dial must be turned to the surface position */
        SPOTREAD_NEEDS_CALIBRATION, /* the dial must be turned to the calibration position */
} SpotreadEvent;

/* One line of output, without its newline. ret_xyz is set for SPOTREAD_RESULT only. */
SpotreadEvent spotread_parse_line(const char *line, double ret_xyz[3]);

/* The -y display type argument for a capability ("-yl" for lcd...), or NULL when spotread
 * needs none (colord's table). */
const char *spotread_display_type(const char *cap);

/* How spotread's port list names an instrument of this sensor kind, or NULL. */
const char *spotread_instrument_name(const char *kind);

/* The -c port number of an instrument in spotread's usage text, from its port list (lines
 * "  N = 'port (instrument)'"): the entry naming the device node or, failing that, the first
 * naming the instrument. 0, or -ENOENT. */
int spotread_find_port(const char *usage, const char *devnode, const char *instrument, unsigned *ret);
