// SPDX-License-Identifier: GPL-2.0-or-later
/* Growable arrays (see array.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

int array_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : ARRAY_FIRST_CAP;
	void *q;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*p, ncap * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

int array_fifo_room(void **p, size_t *lo, size_t *hi, size_t *cap, size_t size)
{
	if (*hi < *cap)
		return 0;
	if (*lo > *cap / 2) {
		memmove(*p, (char *)*p + *lo * size, (*hi - *lo) * size);
		*hi -= *lo;
		*lo = 0;
		return 0;
	}
	return array_grow(p, cap, *hi + 1, size);
}
