/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stacks in the Chrome trace-event JSON export (src/formats/json.c): the format's
 * "stackFrames" dictionary (frame id -> {name, category, parent}) and an
 * event's "sf" (the id of its leaf frame). Frames are merged root first by
 * name, so the dictionary is a tree and each distinct path is written once.
 * The Chrome trace viewer (chrome://tracing) shows an instant's stack from
 * these; Perfetto's JSON import does not read them (it keeps the events).
 */
#ifndef KTOP_JSON_STACKS_H
#define KTOP_JSON_STACKS_H

#include <stdint.h>
#include <stdio.h>

struct store;
struct json_sf;

struct json_sf *json_sf_new(struct store *st);
void json_sf_free(struct json_sf *sf);

/* Return: the frame id of the leaf of stack @stack (0: none or out of memory). */
uint64_t json_sf_leaf(struct json_sf *sf, uint32_t stack);

/* ,"stackFrames":{...} when any frame was made; nothing otherwise. */
void json_sf_write(struct json_sf *sf, FILE *fp);

#endif
