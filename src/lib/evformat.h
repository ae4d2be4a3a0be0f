/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of a tracefs event format file (events/SYS/EVENT/format):
 *
 *	name: sched_switch
 *	ID: 316
 *	format:
 *		field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *	...
 *
 * libtraceevent parses the whole of it; ktop needs only the event's name, to
 * file formats by name before (or without) a tep.
 */
#ifndef KTOP_EVFORMAT_H
#define KTOP_EVFORMAT_H

#include <stdbool.h>
#include <stddef.h>

/**
 * evformat_name - the event name of format text @text (its "name: " line)
 * @name: receives the name, NUL-terminated
 * @len: size of @name
 *
 * Only a line that begins with "name: " counts (not the words of a print fmt).
 * Return: true; false, with @name "", when there is no such line, the name
 * is empty or it does not fit in @len.
 */
bool evformat_name(const char *text, char *name, size_t len);

struct tep_handle;
struct tep_format_field;

/**
 * evformat_field_is_text - is array field @f text (char[], __data_loc char[])?
 *
 * libtraceevent flags every char, u8 and s8 array TEP_FIELD_IS_STRING; only
 * char arrays are text. A __u8 array is bytes (tcp's saddr[4], saddr_v6[16],
 * the 28-byte sockaddrs): read as a string it would stop at the first zero
 * byte. ktop keeps those as hex, every reader and writer alike.
 * Return: true for a text field, false for bytes or a field that is no array.
 */
bool evformat_field_is_text(const struct tep_format_field *f);

/**
 * evformat_field_fits - does field @f lie inside the first @max bytes of a record?
 *
 * libtraceevent reads a format's offset and size with strtoul into ints: a
 * corrupt format's "offset:4294901772" is -65524, and "size:100000" is more
 * than any record. A reader or writer that uses @f's offset or size checks
 * them first, with the size of what it reads or writes.
 * Return: true when 0 <= offset, 0 <= size and offset + size <= @max.
 */
bool evformat_field_fits(const struct tep_format_field *f, int max);

/**
 * evformat_load_system - parse every @events_dir/@sys/EVENT/format into @tep
 * @gz: read EVENT/format.gz where there is no plain file (recorded fixtures)
 *
 * Entries without a format file ("enable", "filter") are skipped, as are
 * formats that do not parse.
 * Return: how many formats were parsed; 0 when @sys cannot be listed.
 */
int evformat_load_system(struct tep_handle *tep, const char *events_dir, const char *sys,
			 bool gz);

#endif
