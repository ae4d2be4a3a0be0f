/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KTOP_DEBUG_H
#define KTOP_DEBUG_H

/**
 * debug_step() - with KTOP_DEBUG_START set, print how long the step that
 * just ended took (and the time since the first step) on stderr.
 * @what: the step's name.
 *
 * Context: start-up, one thread.
 */
void debug_step(const char *what);

#endif
