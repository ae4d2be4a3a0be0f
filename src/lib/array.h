/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growable arrays: the realloc-by-doubling that every table of records in
 * ktop needs (tasks, segments, cursors, nodes), written once. An array is a
 * pointer, a count the caller keeps and a capacity in elements; a zeroed
 * pointer and capacity are an empty array.
 *
 * Context: no locking; the caller owns the array.
 */
#ifndef KTOP_ARRAY_H
#define KTOP_ARRAY_H

#include <stddef.h>

/* The first capacity of an array that had none. */
#define ARRAY_FIRST_CAP	16

/**
 * array_grow - make room for @need elements of @size bytes
 * @p: the array; realloc'd, unchanged on failure
 * @cap: its capacity in elements; doubled (from ARRAY_FIRST_CAP) until it
 *       holds @need
 *
 * Return: 0, or -ENOMEM (the array and @cap are unchanged).
 */
int array_grow(void **p, size_t *cap, size_t need, size_t size);

/**
 * array_fifo_room - make room for one more element at the end of a window
 * @p: the array, whose live elements are [*@lo, *@hi)
 * @lo, @hi, @cap: the window and the capacity, in elements
 * @size: bytes an element
 *
 * For queues consumed from the front: when the array is full and more than
 * half of it lies before *@lo, the window moves to the front instead of the
 * array growing.
 * Return: 0 (then *@hi < *@cap), or -ENOMEM (nothing changed).
 */
int array_fifo_room(void **p, size_t *lo, size_t *hi, size_t *cap, size_t size);

#endif
