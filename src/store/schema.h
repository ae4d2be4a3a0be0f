/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event schemas: for each store type id, its system, name and the kind and
 * name of each argument slot of struct ktop_event. Fixed types are registered
 * at creation; tracefs events without a dedicated decoder are registered as
 * they are met, keeping every field.
 */
#ifndef KTOP_SCHEMA_H
#define KTOP_SCHEMA_H

#include <stddef.h>
#include <stdint.h>
#include "event.h"

enum ktop_field_kind {
	KTOP_FK_INT,	/* signed integer, sign-extended into the u64 */
	KTOP_FK_UINT,
	KTOP_FK_HEX,	/* unsigned, printed 0x... (pointers, masks) */
	KTOP_FK_STR,	/* interned string id */
	KTOP_FK_SYM,	/* interned symbol name id (a resolved kernel address) */
};

struct ktop_field {
	const char		*name;
	enum ktop_field_kind	kind;
};

struct ktop_schema_type {
	const char		*system;
	const char		*name;
	uint16_t		id;
	uint8_t			nfields;
	struct ktop_field	fields[KTOP_MAX_ARGS];
};

struct schema;

struct schema *schema_new(void);	/* fixed types pre-registered */
void schema_free(struct schema *sc);

/**
 * schema_add - register a dynamic type
 * Context: any thread (internally locked); types are never removed, so
 * pointers returned by schema_get stay valid until schema_free.
 * Return: the id (>= KTOP_T_DYNAMIC), or a negative errno.
 */
int schema_add(struct schema *sc, const char *system, const char *name,
	       unsigned int nfields, const struct ktop_field *fields);

/* Return: the type, or NULL when @id is unknown. Context: any thread. */
const struct ktop_schema_type *schema_get(const struct schema *sc, uint16_t id);

/* Return: the id of system:name, or -ENOENT. */
int schema_find(const struct schema *sc, const char *system, const char *name);

/* Return: one past the highest id in use. */
unsigned int schema_max_id(const struct schema *sc);
/* Memory the dynamic types and the tables use, for the store's limit. Context: any thread. */
size_t schema_bytes(const struct schema *sc);

#endif
