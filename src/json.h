/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing JSON text: the one string escaper of the stack outputs. */
#ifndef KTOP_JSON_H
#define KTOP_JSON_H

#include <stdio.h>

/* @s as a JSON string, quotes included (NULL: ""). */
void json_put_str(FILE *o, const char *s);

#endif
