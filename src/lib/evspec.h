/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event specifications as -e takes them (trace-cmd's syntax): "system",
 * "system:event", or an "event" of any system; globs in either part.
 */
#ifndef KTOP_EVSPEC_H
#define KTOP_EVSPEC_H

#include <stdbool.h>

/**
 * evspec_match - does @spec name the event @system:@name?
 * A spec without a colon matches a system or an event name.
 */
bool evspec_match(const char *spec, const char *system, const char *name);

#endif
