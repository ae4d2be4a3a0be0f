// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Events laid out again as kernel records (krecord.h), with the offsets and
 * sizes of their event formats.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "lib/evformat.h"
#include "store/event.h"
#include "krecord.h"
#include "store/meta.h"
#include "lib/intern.h"
#include "lib/strutil.h"
#include "store/schema.h"
#include "store/store.h"
#include "kernel/symbols.h"

#define KRECORD_TYPES	65536

int krecord_init(struct krecord *k, struct tep_handle *tep, struct store *st,
		 const struct snapshot_meta *meta)
{
	memset(k, 0, sizeof(*k));
	k->tep = tep;
	k->st = st;
	k->ev_of_type = calloc(KRECORD_TYPES, sizeof(*k->ev_of_type));
	k->have = calloc(KRECORD_TYPES, 1);
	if (!k->ev_of_type || !k->have)
		return -ENOMEM;
	/* without kallsyms (or with zeroed addresses), symbols are written as 0 */
	if (meta && meta->kallsyms)
		k->syms = symbols_parse(meta->kallsyms, strlen(meta->kallsyms), SYMBOLS_BY_NAME);
	return 0;
}

void krecord_fini(struct krecord *k)
{
	free(k->ev_of_type);
	free(k->have);
	symbols_free(k->syms);
	memset(k, 0, sizeof(*k));
}

struct tep_event *krecord_event(struct krecord *k, uint16_t type)
{
	const struct ktop_schema_type *t;

	if (k->have[type] == 1)
		return k->ev_of_type[type];
	if (k->have[type] == 2)
		return NULL;
	t = schema_get(store_schema(k->st), type);
	k->ev_of_type[type] = t ? tep_find_event_by_name(k->tep, t->system, t->name) : NULL;
	k->have[type] = k->ev_of_type[type] ? 1 : 2;
	return k->ev_of_type[type];
}

static void put_int(uint8_t *p, unsigned int size, uint64_t v)
{
	for (unsigned int i = 0; i < size && i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Decode hex text into @out (at most @max bytes). Return: bytes. */
static size_t unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (n < max && hex_digit(s[0]) >= 0 && hex_digit(s[1]) >= 0) {
		out[n++] = (uint8_t)(hex_digit(s[0]) << 4 | hex_digit(s[1]));
		s += 2;
	}
	return n;
}

static void put_common(struct tep_event *tev, uint8_t *rec, const char *name, uint64_t v)
{
	struct tep_format_field *f = tep_find_common_field(tev, name);

	if (f && evformat_field_fits(f, KRECORD_MAX))
		put_int(rec + f->offset, f->size, v);
}

/*
 * The bytes the fixed part of @tev's records takes; -1 when a field lies
 * outside the half of the buffer a record may take (a corrupt format: every
 * field written below is then inside the record).
 */
static int record_size(struct tep_event *tev)
{
	struct tep_format_field *f;
	int size = 0;

	for (f = tev->format.common_fields; f; f = f->next) {
		if (!evformat_field_fits(f, KRECORD_MAX / 2))
			return -1;
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	}
	for (f = tev->format.fields; f; f = f->next) {
		if (!evformat_field_fits(f, KRECORD_MAX / 2))
			return -1;
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	}
	return size;
}

/*
 * A string field: a dynamic one (__data_loc) appended after the record at
 * *@size, a fixed char array in place, or a byte array from the hex text the
 * decoder made of it.
 */
static void put_string(struct tep_format_field *f, uint8_t *rec, int *size, const char *s)
{
	size_t len = strlen(s), n;
	uint32_t off = *size, loc;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (evformat_field_is_text(f)) {
			if (*size + len + 1 > KRECORD_MAX)
				return;
			memcpy(rec + *size, s, len + 1);
			n = len + 1;
		} else {
			n = unhex(s, rec + *size, KRECORD_MAX - *size);
		}
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off -= f->offset + f->size;
		loc = (uint32_t)(n << 16) | (off & 0xffff);
		put_int(rec + f->offset, 4, loc);
		*size += n;
	} else if (evformat_field_is_text(f)) {
		if (f->size > 0) {
			n = len < (size_t)f->size - 1 ? len : (size_t)f->size - 1;
			memcpy(rec + f->offset, s, n);
		}
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		unhex(s, rec + f->offset, f->size);
	}
}

static uint64_t sym_addr(const struct krecord *k, const char *name)
{
	if (!k->syms && !strncmp(name, "0x", 2))
		return strtoull(name, NULL, 16);
	return symbols_addr(k->syms, name);
}

/* Argument @i of @ev, named @spec ("name" or "name[idx]" for an array element). */
static void put_arg(struct krecord *k, struct tep_event *tev, const struct ktop_field *fd,
		    const struct ktop_event *ev, unsigned int i, uint8_t *rec, int *size)
{
	struct intern *in = store_strings(k->st);
	const char *spec = fd->name, *br = strchr(spec, '[');
	struct tep_format_field *f;
	char name[64];

	snprintf(name, sizeof(name), "%.*s", br ? (int)(br - spec) : (int)strlen(spec), spec);
	f = tep_find_field(tev, name);
	if (!f)
		return;
	if (br) {
		unsigned int idx = strtoul(br + 1, NULL, 10);
		unsigned int esz = f->elementsize ? f->elementsize :
				   (f->arraylen ? f->size / f->arraylen : 0);

		if (esz && (idx + 1) * esz <= (unsigned int)f->size)
			put_int(rec + f->offset + idx * esz, esz, ev->args[i]);
		return;
	}
	if (fd->kind == KTOP_FK_STR)
		put_string(f, rec, size, intern_str(in, (uint32_t)ev->args[i]));
	else if (fd->kind == KTOP_FK_SYM)
		put_int(rec + f->offset, f->size, sym_addr(k, intern_str(in, (uint32_t)ev->args[i])));
	else
		put_int(rec + f->offset, f->size, ev->args[i]);
}

int krecord_encode(struct krecord *k, const struct ktop_event *ev, uint8_t *rec)
{
	const struct ktop_schema_type *t = schema_get(store_schema(k->st), ev->type);
	struct tep_event *tev = krecord_event(k, ev->type);
	int size;

	if (!tev || !t)
		return 0;
	size = record_size(tev);
	if (size <= 0 || size > KRECORD_MAX / 2)
		return 0;
	memset(rec, 0, size);
	put_common(tev, rec, "common_type", tev->id);
	put_common(tev, rec, "common_flags", ev->flags);
	put_common(tev, rec, "common_preempt_count", ev->pc);
	put_common(tev, rec, "common_pid", (uint32_t)ev->pid);
	for (unsigned int i = 0; i < ev->nargs && i < t->nfields; i++)
		put_arg(k, tev, &t->fields[i], ev, i, rec, &size);
	return size;
}
