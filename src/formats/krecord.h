/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An event of the store laid out again as the kernel wrote it: the record a
 * ring buffer holds (common fields, then the fields at the offsets and sizes
 * of its event format), from the store's decoded event and the trace's
 * metadata. The trace.dat writer puts such records into pages; the text
 * writer hands them to libtraceevent's printer. Symbol fields are written
 * back as the symbol's address from the metadata's kallsyms.
 */
#ifndef KTOP_FORMAT_KRECORD_H
#define KTOP_FORMAT_KRECORD_H

#include <stdint.h>

struct ktop_event;
struct snapshot_meta;
struct store;
struct tep_handle;
struct tep_event;
struct symbols;

#define KRECORD_MAX	65536	/* bytes of a record buffer; records use half at most */

struct krecord {
	struct tep_handle	*tep;
	struct store		*st;
	struct symbols		*syms;		/* from the meta's kallsyms; may be NULL */
	struct tep_event	**ev_of_type;	/* cache by store type id */
	uint8_t			*have;		/* 0 unknown, 1 found, 2 none */
};

/**
 * krecord_init - prepare to lay out @st's events with @tep's formats
 * Return: 0 or -ENOMEM (krecord_fini() either way).
 */
int krecord_init(struct krecord *k, struct tep_handle *tep, struct store *st,
		 const struct snapshot_meta *meta);
void krecord_fini(struct krecord *k);

/**
 * krecord_encode - lay out @ev in @rec (KRECORD_MAX bytes)
 * Return: the record's size, 0 when the event has no kernel format (ktop's
 * own marks, or a type the metadata lacks).
 */
int krecord_encode(struct krecord *k, const struct ktop_event *ev, uint8_t *rec);

/* Return: the kernel's event of store type @type, or NULL. */
struct tep_event *krecord_event(struct krecord *k, uint16_t type);

#endif
