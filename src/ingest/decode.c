// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Raw ring-buffer pages -> struct ktop_event -> store.
 *
 * At setup every event format known to the tep is turned into a small
 * program: one load instruction per argument slot (offset, size, how to
 * convert), plus an optional post-step for the events that carry a comm. The
 * programs sit in an array indexed by the kernel's event id, so decoding one
 * record is an array index, a few loads at fixed offsets and, for strings and
 * addresses, a hit in a per-decoder cache. No field is looked up by name
 * after decode_ctx_new().
 *
 * Events with a fixed type (src/store/event.h) get their arguments in the order the
 * schema gives; every other event becomes a dynamic schema type holding all
 * of its fields, registered the first time a record of it is decoded.
 *
 * Pages: kbuffer loads each page and reports its missed-events mark; the
 * records of 64-bit little-endian pages are then walked by decoder_walk(),
 * which does what kbuffer_next_event() does without its per-record indirect
 * calls (they cost as much as the decoding). Other pages use kbuffer's walk.
 * KTOP_DECODE_KBUFFER_WALK=1 in the environment forces kbuffer's walk (the
 * tests compare both). Either walk decodes the events in place, into the
 * open chunk of the CPU's store stream (store_reserve, store_commit).
 *
 * Stack records (ftrace:kernel_stack, ftrace:user_stack) are not events: they
 * become the stack id of the last event before them (decode_stack.h). An
 * event that ends a page while its type is known to carry stacks is held
 * back, uncommitted, until the next page of its CPU, whose first record may
 * be its stack (decoder_flush() lets it go when no page follows).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "decode.h"
#include "lib/evformat.h"
#include "lib/intern.h"
#include "rb_page.h"
#include "store/schema.h"
#include "store/store.h"
#include "kernel/symbols.h"
#include "lib/tuning.h"
#include "decode-local.h"

/* ---- setup ------------------------------------------------------------- */

struct fixed_spec {
	uint16_t	type;
	uint8_t		post;
	const char	*system;
	const char	*name;
	const char	*fields[KTOP_MAX_ARGS];	/* "name" or "name[i]" */
};

/* Argument order: src/store/event.h; kinds: the fixed types in src/store/schema.c. */
static const struct fixed_spec fixed_specs[] = {
	{ KTOP_T_FUNCTION, DPOST_NONE, "ftrace", "function", { "ip", "parent_ip" } },
	{ KTOP_T_FGRAPH_ENTRY, DPOST_NONE, "ftrace", "funcgraph_entry", { "func", "depth" } },
	{ KTOP_T_FGRAPH_EXIT, DPOST_NONE, "ftrace", "funcgraph_exit",
	  { "func", "depth", "calltime", "rettime", "overrun" } },
	{ KTOP_T_FUNC_REPEATS, DPOST_REPEATS, "ftrace", "func_repeats",
	  { "ip", "parent_ip", "count", "top_delta_ts" } },
	{ KTOP_T_SCHED_SWITCH, DPOST_SWITCH, "sched", "sched_switch",
	  { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid",
	    "next_prio" } },
	{ KTOP_T_SCHED_WAKEUP, DPOST_COMM_PID, "sched", "sched_wakeup",
	  { "comm", "pid", "prio", "target_cpu" } },
	{ KTOP_T_SCHED_WAKEUP_NEW, DPOST_COMM_PID, "sched", "sched_wakeup_new",
	  { "comm", "pid", "prio", "target_cpu" } },
	{ KTOP_T_SCHED_PROCESS_EXEC, DPOST_EXEC, "sched", "sched_process_exec",
	  { "filename", "pid", "old_pid" } },
	{ KTOP_T_SCHED_PROCESS_EXIT, DPOST_COMM_PID, "sched", "sched_process_exit",
	  { "comm", "pid", "prio" } },
	{ KTOP_T_IRQ_HANDLER_ENTRY, DPOST_NONE, "irq", "irq_handler_entry", { "irq", "name" } },
	{ KTOP_T_IRQ_HANDLER_EXIT, DPOST_NONE, "irq", "irq_handler_exit", { "irq", "ret" } },
	{ KTOP_T_SOFTIRQ_ENTRY, DPOST_NONE, "irq", "softirq_entry", { "vec" } },
	{ KTOP_T_SOFTIRQ_EXIT, DPOST_NONE, "irq", "softirq_exit", { "vec" } },
	{ KTOP_T_SYS_ENTER, DPOST_NONE, "raw_syscalls", "sys_enter",
	  { "id", "args[0]", "args[1]", "args[2]", "args[3]", "args[4]", "args[5]" } },
	{ KTOP_T_SYS_EXIT, DPOST_NONE, "raw_syscalls", "sys_exit", { "id", "ret" } },
	{ KTOP_T_OSNOISE, DPOST_NONE, "ftrace", "osnoise",
	  { "runtime", "noise", "max_sample", "hw_count", "nmi_count", "irq_count",
	    "softirq_count", "thread_count" } },
	{ KTOP_T_TIMERLAT, DPOST_NONE, "ftrace", "timerlat",
	  { "seqnum", "context", "timer_latency" } },
	{ KTOP_T_IRQ_NOISE, DPOST_NONE, "osnoise", "irq_noise",
	  { "start", "duration", "desc", "vector" } },
	{ KTOP_T_SOFTIRQ_NOISE, DPOST_NONE, "osnoise", "softirq_noise",
	  { "start", "duration", "vector" } },
	{ KTOP_T_NMI_NOISE, DPOST_NONE, "osnoise", "nmi_noise", { "start", "duration" } },
	{ KTOP_T_THREAD_NOISE, DPOST_COMM_PID, "osnoise", "thread_noise",
	  { "comm", "pid", "start", "duration" } },
	{ KTOP_T_SAMPLE_THRESHOLD, DPOST_NONE, "osnoise", "sample_threshold",
	  { "start", "duration", "interference" } },
};

/*
 * Generic events that name a task's comm: they keep all their fields like any
 * other, and also feed the comm table. A NULL pid field means the task is
 * the one the event ran in (common_pid).
 */
static const struct {
	const char	*system, *name, *comm, *pid;
} comm_specs[] = {
	{ "task", "task_rename", "newcomm", "pid" },	/* prctl(PR_SET_NAME), comm writes */
	{ "sched", "sched_process_fork", "child_comm", "child_pid" },
	{ "sched", "sched_waking", "comm", "pid" },
};

#define AUX_COMMON_PID	0xff

/* Hex strings of arrays longer than this are not kept. */
#define HEX_MAX_BYTES	64

static uint8_t int_op(unsigned int size, bool is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? DOP_S8 : DOP_U8;
	case 2:
		return is_signed ? DOP_S16 : DOP_U16;
	case 4:
		return is_signed ? DOP_S32 : DOP_U32;
	case 8:
		return is_signed ? DOP_S64 : DOP_U64;
	default:
		return DOP_ZERO;
	}
}

static int slot_end(const struct dslot *s)
{
	switch (s->op) {
	case DOP_ZERO:
		return 0;
	case DOP_DLOC:
	case DOP_RLOC:
	case DOP_DLOC_HEX:
		return s->off + 4;
	default:
		return s->off + s->size;
	}
}

/*
 * Slot for a whole field. Return: true when the field can be kept, with
 * @kind set to how it reads.
 */
static bool slot_from_field(const struct tep_format_field *f, struct dslot *s,
			    enum ktop_field_kind *kind)
{
	unsigned long fl = f->flags;

	if (!evformat_field_fits(f, UINT16_MAX))
		return false;	/* a corrupt format: the slots hold u16 offsets */
	s->off = f->offset;
	s->size = f->size;
	s->rel = !!(fl & TEP_FIELD_IS_RELATIVE);
	if (fl & TEP_FIELD_IS_DYNAMIC) {
		*kind = KTOP_FK_STR;
		if (f->size != 4)
			return false;
		if (evformat_field_is_text(f))
			s->op = s->rel ? DOP_RLOC : DOP_DLOC;
		else
			s->op = DOP_DLOC_HEX;
		return true;
	}
	if (fl & TEP_FIELD_IS_ARRAY) {
		*kind = KTOP_FK_STR;
		if (evformat_field_is_text(f)) {
			s->op = f->size ? DOP_STR : DOP_STR_TAIL;
			return true;
		}
		if (!f->size || f->size > HEX_MAX_BYTES)
			return false;
		s->op = DOP_HEX;
		return true;
	}
	s->op = int_op(f->size, fl & TEP_FIELD_IS_SIGNED);
	if (s->op == DOP_ZERO)
		return false;
	if (fl & TEP_FIELD_IS_POINTER)
		*kind = KTOP_FK_HEX;
	else
		*kind = (fl & TEP_FIELD_IS_SIGNED) ? KTOP_FK_INT : KTOP_FK_UINT;
	return true;
}

/* Slot for "name" or "name[i]" of @event, converted as @kind says. */
static void slot_fixed(struct tep_event *event, const char *spec, enum ktop_field_kind kind,
		       struct dslot *s)
{
	char name[64];
	const char *br = strchr(spec, '[');
	struct tep_format_field *f;
	unsigned int idx = 0, esz;
	enum ktop_field_kind k;

	memset(s, 0, sizeof(*s));
	snprintf(name, sizeof(name), "%.*s", br ? (int)(br - spec) : (int)strlen(spec), spec);
	if (br)
		idx = strtoul(br + 1, NULL, 10);
	f = tep_find_field(event, name);
	if (!f || !evformat_field_fits(f, UINT16_MAX))
		return;		/* DOP_ZERO: no such field here (or a corrupt one) */
	if (br) {
		esz = f->elementsize ? f->elementsize :
		      (f->arraylen ? f->size / f->arraylen : 0);
		if (!esz || (idx + 1) * esz > (unsigned int)f->size)
			return;
		s->off = f->offset + idx * esz;
		s->size = esz;
		s->op = int_op(esz, f->flags & TEP_FIELD_IS_SIGNED);
		return;
	}
	if (kind == KTOP_FK_STR) {
		if (!slot_from_field(f, s, &k))
			memset(s, 0, sizeof(*s));
		return;
	}
	s->off = f->offset;
	s->size = f->size;
	if (kind == KTOP_FK_SYM && (f->size == 8 || f->size == 4))
		s->op = DOP_SYM;	/* an address, on a 64- or 32-bit kernel */
	else
		s->op = int_op(f->size, f->flags & TEP_FIELD_IS_SIGNED);
}

static struct dtype *dtype_fixed(struct decode_ctx *dc, struct tep_event *event,
				 const struct fixed_spec *fs)
{
	const struct ktop_schema_type *st = schema_get(dc->schema, fs->type);
	struct dtype *t;
	int end;

	if (!st)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	atomic_init(&t->type, fs->type);
	t->post = fs->post;
	t->event = event;
	for (unsigned int i = 0; i < st->nfields && i < KTOP_MAX_ARGS && fs->fields[i]; i++) {
		slot_fixed(event, fs->fields[i], st->fields[i].kind, &t->slot[i]);
		end = slot_end(&t->slot[i]);
		if (end > t->min_size)
			t->min_size = end;
		t->nargs = i + 1;
	}
	if (fs->post == DPOST_REPEATS) {
		struct tep_format_field *f = tep_find_field(event, "bottom_delta_ts");

		/* top_delta_ts is a u16 or u32 depending on the kernel */
		if (f && f->size == 4 && evformat_field_fits(f, UINT16_MAX) &&
		    t->slot[3].op != DOP_ZERO && t->slot[3].size <= 4) {
			t->aux_off = f->offset;
			if (f->offset + 4 > t->min_size)
				t->min_size = f->offset + 4;
		} else {
			t->post = DPOST_NONE;
		}
	}
	return t;
}

/*
 * Fields the event's own print format shows as a kernel symbol (%ps, %pS,
 * %pf, %pF, %pB), e.g. timer:hrtimer_start's function: those are kept as
 * symbols rather than hex. The format's conversions are matched to its
 * argument list in order.
 * Return: 0 not a symbol, 1 a symbol (%ps, %pf), 2 a symbol with its offset
 * (%pS, %pF, %pB: an address inside a function, skb:kfree_skb's location).
 */
static int field_is_sym(struct tep_event *event, const struct tep_format_field *f)
{
	struct tep_print_arg *arg = event->print_fmt.args;
	const char *p = event->print_fmt.format;

	if (!p || (f->size != 8 && f->size != 4) ||
	    (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		return 0;
	while (p && (p = strchr(p, '%')) && arg) {
		bool sym;

		p++;
		if (*p == '%') {
			p++;
			continue;
		}
		for (; *p && strchr("-+ #0123456789.*", *p); p++) {
			if (*p == '*' && arg)
				arg = arg->next;	/* a width or precision argument */
		}
		while (*p && strchr("hlLzjtq", *p))
			p++;
		sym = p[0] == 'p' && p[1] && strchr("sSfFB", p[1]);
		if (!arg)
			break;
		if (sym) {
			struct tep_print_arg *a = arg;

			while (a && a->type == TEP_PRINT_TYPE)
				a = a->typecast.item;
			if (a && a->type == TEP_PRINT_FIELD && a->field.field == f)
				return strchr("SFB", p[1]) ? 2 : 1;
		}
		arg = arg->next;
	}
	return 0;
}

static struct dtype *dtype_dynamic(struct decode_ctx *dc, struct tep_event *event)
{
	struct tep_format_field *f;
	struct dtype *t;
	int end;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	atomic_init(&t->type, 0);
	t->event = event;
	/* the first KTOP_MAX_ARGS fields that can be kept; no tracepoint here has more */
	for (f = event->format.fields; f && t->nargs < KTOP_MAX_ARGS; f = f->next) {
		struct dslot *s = &t->slot[t->nargs];
		enum ktop_field_kind kind;

		if (!slot_from_field(f, s, &kind)) {
			memset(s, 0, sizeof(*s));
			continue;	/* wide integer or large array: not kept */
		}
		switch (field_is_sym(event, f)) {
		case 2:
			s->op = DOP_SYM_OFF;
			kind = KTOP_FK_SYM;
			break;
		case 1:
			s->op = DOP_SYM;
			kind = KTOP_FK_SYM;
			break;
		}
		t->fields[t->nargs].name = f->name;
		t->fields[t->nargs].kind = kind;
		end = slot_end(s);
		if (end > t->min_size)
			t->min_size = end;
		t->nargs++;
	}
	t->nfields = t->nargs;
	for (size_t i = 0; i < sizeof(comm_specs) / sizeof(comm_specs[0]); i++) {
		if (strcmp(event->name, comm_specs[i].name) ||
		    strcmp(event->system, comm_specs[i].system))
			continue;
		t->aux_comm = t->aux_pid = AUX_COMMON_PID;
		for (unsigned int a = 0; a < t->nargs; a++) {
			if (!strcmp(t->fields[a].name, comm_specs[i].comm) &&
			    t->fields[a].kind == KTOP_FK_STR)
				t->aux_comm = a;
			if (!strcmp(t->fields[a].name, comm_specs[i].pid) &&
			    t->fields[a].kind == KTOP_FK_INT)
				t->aux_pid = a;
		}
		if (t->aux_comm != AUX_COMMON_PID)
			t->post = DPOST_COMM_SLOTS;
	}
	return t;
}

static int common_slot(struct tep_event *event, const char *name, struct dslot *s)
{
	struct tep_format_field *f = tep_find_common_field(event, name);

	if (!f || !evformat_field_fits(f, UINT16_MAX))
		return -EINVAL;
	s->off = f->offset;
	s->size = f->size;
	s->op = int_op(f->size, f->flags & TEP_FIELD_IS_SIGNED);
	return s->op == DOP_ZERO ? -EINVAL : 0;
}

static int ctx_common(struct decode_ctx *dc, struct tep_event *event)
{
	int ret;

	ret = common_slot(event, "common_type", &dc->c_type);
	if (!ret)
		ret = common_slot(event, "common_flags", &dc->c_flags);
	if (!ret)
		ret = common_slot(event, "common_preempt_count", &dc->c_pc);
	if (!ret)
		ret = common_slot(event, "common_pid", &dc->c_pid);
	if (ret)
		return ret;
	dc->common_min = 0;
	for (const struct dslot *s = &dc->c_type; s <= &dc->c_pid; s++)
		if (s->off + s->size > dc->common_min)
			dc->common_min = s->off + s->size;
	dc->std_common = dc->c_type.off == 0 && dc->c_type.op == DOP_U16 &&
			 dc->c_flags.off == 2 && dc->c_flags.op == DOP_U8 &&
			 dc->c_pc.off == 3 && dc->c_pc.op == DOP_U8 &&
			 dc->c_pid.off == 4 && dc->c_pid.op == DOP_S32;
	return 0;
}

/*
 * Events whose slots are all integers are decoded without a switch per slot:
 * each is an 8-byte load, shifted left then right by 64 - its bits, which
 * needs the 8 bytes from the field's offset to be readable (load_end).
 */
static void dtype_ints(struct dtype *t)
{
	static const struct {
		uint8_t bytes, sgn;
	} ops[] = {
		[DOP_U8] = { 1, 0 }, [DOP_U16] = { 2, 0 }, [DOP_U32] = { 4, 0 }, [DOP_U64] = { 8, 0 },
		[DOP_S8] = { 1, 1 }, [DOP_S16] = { 2, 1 }, [DOP_S32] = { 4, 1 }, [DOP_S64] = { 8, 1 },
	};

	t->ints = true;
	t->copy = false;	/* decided below, once every slot is an integer */
	t->load_end = 0;
	for (unsigned int i = 0; i < t->nargs; i++) {
		struct dslot *s = &t->slot[i];

		if (s->op == DOP_ZERO || s->op > DOP_S64) {
			/* absent fields stay with the switch too: they are rare */
			t->ints = false;
			return;
		}
		s->sh = 64 - 8 * ops[s->op].bytes;
		s->sgn = ops[s->op].sgn;
		if (s->off + 8 > t->load_end)
			t->load_end = s->off + 8;
	}
	/*
	 * raw_syscalls (id and six arguments, id and ret: three quarters of the
	 * events of a syscall trace) are 8-byte fields one after the other: one
	 * fixed 64-byte copy takes them all.
	 */
	t->copy = t->nargs && t->nargs <= 8;
	for (unsigned int i = 0; i < t->nargs; i++)
		if (t->slot[i].sh || t->slot[i].off != t->slot[0].off + 8 * i)
			t->copy = false;
	t->copy_end = t->slot[0].off + 64;
}


static const struct fixed_spec *fixed_find(const struct tep_event *event)
{
	for (size_t i = 0; i < sizeof(fixed_specs) / sizeof(fixed_specs[0]); i++)
		if (!strcmp(event->name, fixed_specs[i].name) &&
		    !strcmp(event->system, fixed_specs[i].system))
			return &fixed_specs[i];
	return NULL;
}

/*
 * The program of @ev: a fixed type's, or a dynamic one (a stack record's reads
 * its frames). Return: NULL when out of memory.
 */
static struct dtype *dtype_new(struct decode_ctx *dc, struct tep_event *ev)
{
	const struct fixed_spec *fs = fixed_find(ev);
	struct dtype *t = fs ? dtype_fixed(dc, ev, fs) : dtype_dynamic(dc, ev);

	if (!t)
		return NULL;
	dtype_ints(t);
	if (dtype_stack(dc, t)) {
		free(t);
		return NULL;
	}
	return t;
}

struct decode_ctx *decode_ctx_new(struct tep_handle *tep, struct store *st,
				  struct symbols *syms)
{
	struct tep_event **events;
	struct decode_ctx *dc;
	int err = ENOMEM, maxid = -1;

	if (!tep || !st) {
		errno = EINVAL;
		return NULL;
	}
	if (tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep)) {
		errno = EPROTONOSUPPORT;
		return NULL;
	}
	events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	if (!events || !events[0]) {
		errno = ENOENT;
		return NULL;
	}
	dc = calloc(1, sizeof(*dc));
	if (!dc)
		goto out_err;
	dc->tep = tep;
	dc->st = st;
	dc->strs = store_strings(st);
	dc->schema = store_schema(st);
	dc->syms = syms;
	dc->long_size = tep_get_header_page_size(tep) == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8;
	dc->old_format = tep_is_old_format(tep);
	dc->fast_walk = !dc->old_format && dc->long_size == KBUFFER_LSIZE_8 &&
			!tep_is_file_bigendian(tep) && !tuning()->decode_kbuffer_walk;
	if (ctx_common(dc, events[0])) {
		err = EINVAL;
		goto out_free;
	}
	dc->lazy_count = tep_find_common_field(events[0], "common_preempt_lazy_count");
	for (unsigned int v = 0; v < 256; v++) {
		dc->fcat[v] = (uint64_t)!!(v & KTOP_KF_IRQS_OFF) << (FLAG_BITS * DECODE_F_IRQS_OFF) |
			(uint64_t)!!(v & KTOP_KF_NEED_RESCHED) << (FLAG_BITS * DECODE_F_NEED_RESCHED) |
			(uint64_t)!!(v & KTOP_KF_HARDIRQ) << (FLAG_BITS * DECODE_F_HARDIRQ) |
			(uint64_t)!!(v & KTOP_KF_SOFTIRQ) << (FLAG_BITS * DECODE_F_SOFTIRQ) |
			(uint64_t)!!(v & KTOP_KF_NMI) << (FLAG_BITS * DECODE_F_NMI);
		dc->pcat[v] = (uint64_t)(KTOP_PC_PREEMPT(v) > 0) << (FLAG_BITS * DECODE_F_PREEMPT) |
			(uint64_t)(KTOP_PC_MIGRATE(v) > 0) << (FLAG_BITS * DECODE_F_MIGRATE);
	}
	for (int i = 0; events[i]; i++)
		if (events[i]->id > maxid)
			maxid = events[i]->id;
	if (maxid < 0 || maxid > UINT16_MAX) {
		err = EINVAL;
		goto out_free;
	}
	dc->nids = maxid + 1;
	dc->by_id = calloc(dc->nids, sizeof(*dc->by_id));
	if (!dc->by_id)
		goto out_free;
	for (int i = 0; events[i]; i++) {
		struct tep_event *ev = events[i];

		/* a malformed trace.dat may give two formats one id: the first wins */
		if (ev->id < 0 || ev->flags & TEP_EVENT_FL_FAILED || dc->by_id[ev->id])
			continue;
		dc->by_id[ev->id] = dtype_new(dc, ev);
		if (!dc->by_id[ev->id])
			goto out_free;
	}
	return dc;

out_free:
	decode_ctx_free(dc);
out_err:
	errno = err;
	return NULL;
}

int decode_ctx_add_event(struct decode_ctx *dc, struct tep_event *ev)
{
	struct dtype *t;

	if (!ev || ev->id < 0 || ev->id > UINT16_MAX || ev->flags & TEP_EVENT_FL_FAILED)
		return -EINVAL;
	if ((unsigned int)ev->id >= dc->nids) {
		struct dtype **by = realloc(dc->by_id, (ev->id + 1) * sizeof(*by));

		if (!by)
			return -ENOMEM;
		memset(by + dc->nids, 0, (ev->id + 1 - dc->nids) * sizeof(*by));
		dc->by_id = by;
		dc->nids = ev->id + 1;
	}
	t = dtype_new(dc, ev);
	if (!t)
		return -ENOMEM;
	if (dc->by_id[ev->id])
		free(dc->by_id[ev->id]->stk);
	free(dc->by_id[ev->id]);
	dc->by_id[ev->id] = t;
	return 0;
}

int decode_ctx_set_kinds(struct decode_ctx *dc, const char *system, const char *name,
			 const struct ktop_field *fields, unsigned int n)
{
	struct dtype *t = NULL;
	int set = 0;

	for (unsigned int i = 0; i < dc->nids && !t; i++)
		if (dc->by_id[i] && !strcmp(dc->by_id[i]->event->system, system) &&
		    !strcmp(dc->by_id[i]->event->name, name))
			t = dc->by_id[i];
	if (!t || t->type)
		return -ENOENT;		/* unknown, or a fixed or registered type */
	for (unsigned int k = 0; k < n; k++) {
		for (unsigned int a = 0; a < t->nfields; a++) {
			struct dslot *sl = &t->slot[a];
			bool sym = fields[k].kind == KTOP_FK_SYM;

			/* integers only (strings, arrays: as the format says) */
			if (strcmp(t->fields[a].name, fields[k].name) || sl->op == DOP_ZERO ||
			    sl->op > DOP_S64 || fields[k].kind == KTOP_FK_STR ||
			    (sym && sl->size != 8 && sl->size != 4))
				continue;
			if (sym)
				sl->op = DOP_SYM;
			t->fields[a].kind = fields[k].kind;
			set++;
		}
	}
	dtype_ints(t);
	return set;
}

bool decode_ctx_has_lazy_count(const struct decode_ctx *dc)
{
	return dc->lazy_count;
}

void decode_ctx_free(struct decode_ctx *dc)
{
	if (!dc)
		return;
	if (dc->by_id)
		for (unsigned int i = 0; i < dc->nids; i++) {
			if (dc->by_id[i])
				free(dc->by_id[i]->stk);
			free(dc->by_id[i]);
		}
	free(dc->by_id);
	free(dc);
}

struct decoder *decoder_new(struct decode_ctx *dc, unsigned int cpu)
{
	struct decoder *d;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->dc = dc;
	d->cpu = cpu;
	d->kb = kbuffer_alloc(dc->long_size, tep_is_file_bigendian(dc->tep) ?
			      KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!d->kb) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	if (dc->old_format)
		kbuffer_set_old_format(d->kb);
	return d;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	decoder_flush(d, false, NULL);	/* the held event goes in before the decoder goes */
	kbuffer_free(d->kb);
	free(d->stk);
	free(d);
}

/* ---- per event ----------------------------------------------------------- */


static inline uint32_t str_hash(const uint64_t *k, uint32_t len)
{
	uint64_t h = (k[0] ^ (k[1] * 0x9e3779b97f4a7c15ull) ^ (k[2] * 0xc2b2ae3d27d4eb4full) ^
		      k[3] ^ len) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) & (STR_CACHE - 1);
}

static uint32_t decoder_intern(struct decoder *d, const char *s, size_t len)
{
	struct str_entry *e;
	uint64_t key[STR_KEY / 8];
	uint32_t id;

	if (!len)
		return 0;
	if (len > STR_KEY)
		return intern_id(d->dc->strs, s, len);
	memset(key, 0, sizeof(key));
	memcpy(key, s, len);
	e = &d->str[str_hash(key, len)];
	if (e->len == len && !memcmp(e->key, key, sizeof(key)))
		return e->id;
	id = intern_id(d->dc->strs, s, len);
	if (id == UINT32_MAX)
		return 0;
	memcpy(e->key, key, sizeof(key));
	e->len = len;
	e->id = id;
	return id;
}

/* The name of @addr; @with_off: "name+0xoff" when it is inside the function. */
static uint32_t decoder_sym(struct decoder *d, uint64_t addr, bool with_off)
{
	struct sym_entry *e = &d->sym[((addr >> 4) ^ (addr >> 17)) & (SYM_CACHE - 1)];
	uint32_t id, valid = with_off ? 2 : 1;
	char hex[24], buf[160];
	const char *name;
	uint64_t off = 0;

	if (e->valid == valid && e->addr == addr)
		return e->id;
	name = symbols_lookup(d->dc->syms, addr, &off);
	if (name && with_off && off) {
		int n = snprintf(buf, sizeof(buf), "%s+0x%llx", name, (unsigned long long)off);

		id = intern_id(d->dc->strs, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	} else if (name) {
		id = intern_id(d->dc->strs, name, strlen(name));
	} else {
		int n = snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);

		id = intern_id(d->dc->strs, hex, n);
	}
	if (id == UINT32_MAX)
		return 0;
	e->addr = addr;
	e->id = id;
	e->valid = valid;
	return id;
}

static uint32_t decoder_hex(struct decoder *d, const uint8_t *p, size_t len)
{
	char buf[2 * HEX_MAX_BYTES + 1];
	static const char digits[] = "0123456789abcdef";

	if (len > HEX_MAX_BYTES)
		len = HEX_MAX_BYTES;
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = digits[p[i] >> 4];
		buf[2 * i + 1] = digits[p[i] & 0xf];
	}
	return intern_id(d->dc->strs, buf, 2 * len);
}

/* Bounds of a __data_loc / __rel_loc field. Return: false when out of the record. */
static inline bool dloc(const uint8_t *data, int size, const struct dslot *s, bool rel,
			const uint8_t **p, size_t *len)
{
	uint32_t v, off, l;

	memcpy(&v, data + s->off, 4);
	off = v & 0xffff;
	l = v >> 16;
	if (rel)
		off += s->off + 4;
	if (off + l > (uint32_t)size)
		return false;
	*p = data + off;
	*len = l;
	return true;
}

/*
 * Task @pid is named string @id at trace time @ts. Every sighting goes to the
 * store, even of the name it has: the table keeps the newest name by trace
 * time, and a later sighting's time is what keeps an older event decoded late
 * by another CPU's reader from taking the name back.
 */
static inline void decoder_comm(struct decoder *d, int32_t pid, uint32_t id, uint64_t ts)
{
	if (pid <= 0 || !id)
		return;		/* pid 0 is each CPU's idle task, named per CPU */
	store_set_comm_id(d->dc->st, pid, id, ts);
}

static int decoder_register(struct decoder *d, struct dtype *t)
{
	int id = schema_add(d->dc->schema, t->event->system, t->event->name, t->nfields,
			    t->fields);

	if (id < 0)
		return id;
	atomic_store_explicit(&t->type, id, memory_order_relaxed);
	return id;
}

/* The arguments of a type that is not a plain copy: strings interned, symbols named. */
static inline __attribute__((always_inline)) void
decode_slots(struct decoder *d, const struct dtype *t, const uint8_t *p, int size, uint64_t *args)
{
	for (unsigned int i = 0; i < t->nargs; i++) {
		const struct dslot *s = &t->slot[i];
		const uint8_t *sp;
		size_t len;

		switch (s->op) {
		case DOP_STR:
			sp = p + s->off;
			args[i] = decoder_intern(d, (const char *)sp, strnlen((const char *)sp,
								s->size));
			break;
		case DOP_STR_TAIL:
			sp = p + s->off;
			len = s->off < size ? strnlen((const char *)sp, size - s->off) : 0;
			args[i] = decoder_intern(d, (const char *)sp, len);
			break;
		case DOP_DLOC:
		case DOP_RLOC:
			if (!dloc(p, size, s, s->op == DOP_RLOC, &sp, &len)) {
				args[i] = 0;
				break;
			}
			args[i] = decoder_intern(d, (const char *)sp,
						      strnlen((const char *)sp, len));
			break;
		case DOP_HEX:
			args[i] = decoder_hex(d, p + s->off, s->size);
			break;
		case DOP_DLOC_HEX:
			args[i] = dloc(p, size, s, s->rel, &sp, &len) ?
				       decoder_hex(d, sp, len) : 0;
			break;
		case DOP_SYM:
		case DOP_SYM_OFF:
			args[i] = decoder_sym(d, load_slot(p + s->off, s->size == 8 ?
							       DOP_U64 : DOP_U32),
					      s->op == DOP_SYM_OFF);
			break;
		default:
			args[i] = load_slot(p + s->off, s->op);
			break;
		}
	}
}

/* What an event says besides its arguments: comms, the bottom half of a count. */
static inline __attribute__((always_inline)) void
decode_post(struct decoder *d, const struct dtype *t, const uint8_t *p,
	    const struct store_brow *out, uint64_t *args)
{
	const struct decode_ctx *dc = d->dc;

	switch (t->post) {
	case DPOST_NONE:
		break;
	case DPOST_SWITCH:
		decoder_comm(d, (int32_t)args[1], (uint32_t)args[0], out->ts);
		decoder_comm(d, (int32_t)args[5], (uint32_t)args[4], out->ts);
		break;
	case DPOST_COMM_PID:
		decoder_comm(d, (int32_t)args[1], (uint32_t)args[0], out->ts);
		break;
	case DPOST_EXEC: {
		/* the kernel names the new image after the file: kbasename(), 15 chars */
		const char *fn = intern_str(dc->strs, (uint32_t)args[0]);
		const char *base = strrchr(fn, '/');

		base = base ? base + 1 : fn;
		decoder_comm(d, (int32_t)args[1],
			     decoder_intern(d, base, strnlen(base, 15)), out->ts);
		break;
	}
	case DPOST_COMM_SLOTS:
		decoder_comm(d, t->aux_pid == AUX_COMMON_PID ? out->pid :
			     (int32_t)args[t->aux_pid], (uint32_t)args[t->aux_comm], out->ts);
		break;
	case DPOST_REPEATS: {
		uint32_t bottom;

		memcpy(&bottom, p + t->aux_off, 4);
		args[3] = (args[3] << 32) | bottom;
		break;
	}
	}
}

static inline __attribute__((always_inline)) int
decode_one(struct decoder *d, const void *data, int size, int room, uint64_t ts,
	   struct store_brow *out, uint64_t *args, struct dtype **tp)
{
	const struct decode_ctx *dc = d->dc;
	const uint8_t *p = data;
	uint64_t id, common = 0;
	struct dtype *t;
	int type;

	if (size < dc->common_min)
		return -EINVAL;
	if (__builtin_expect(dc->std_common, 1)) {
		memcpy(&common, p, 8);		/* common_min is 8 */
		id = (uint16_t)common;
	} else {
		id = load_slot(p + dc->c_type.off, dc->c_type.op);
	}
	if (id >= dc->nids || !(t = dc->by_id[id]))
		return -ENOENT;
	if (size < t->min_size)
		return -EINVAL;
	*tp = t;
	if (__builtin_expect(t->post == DPOST_STACK, 0))
		return DECODE_STACK_REC;
	type = atomic_load_explicit(&t->type, memory_order_relaxed);
	if (!type) {
		type = decoder_register(d, t);
		if (type < 0)
			return type;
	}
	out->ts = ts;
	out->type = type;
	out->stack = 0;
	if (__builtin_expect(dc->std_common, 1)) {
		out->flags = (uint8_t)(common >> 16);
		out->pc = (uint8_t)(common >> 24);
		out->pid = (int32_t)(common >> 32);
	} else {
		out->flags = load_slot(p + dc->c_flags.off, dc->c_flags.op);
		out->pc = load_slot(p + dc->c_pc.off, dc->c_pc.op);
		out->pid = load_slot(p + dc->c_pid.off, dc->c_pid.op);
	}
	out->nargs = t->nargs;

	if (t->copy && t->copy_end <= room) {
		/* the destination has room for KTOP_MAX_ARGS: the copy may write 8 */
		memcpy(args, p + t->slot[0].off, 8 * sizeof(args[0]));
		goto post;
	}
	if (t->ints && t->load_end <= room) {
		for (unsigned int i = 0; i < t->nargs; i++) {
			const struct dslot *s = &t->slot[i];
			uint64_t v;

			memcpy(&v, p + s->off, 8);
			v <<= s->sh;
			args[i] = s->sgn ? (uint64_t)((int64_t)v >> s->sh) : v >> s->sh;
		}
		goto post;
	}
	decode_slots(d, t, p, size, args);

post:
	decode_post(d, t, p, out, args);
	return 0;
}


int decoder_record(struct decoder *d, const void *data, int size, uint64_t ts,
		   struct ktop_event *out)
{
	struct dtype *t = NULL;
	struct store_brow b;
	int ret;

	ret = decode_one(d, data, size, size, ts, &b, out->args, &t);
	if (ret == DECODE_STACK_REC)
		return decoder_record_stack(d, t, data, size, ts, out);
	if (ret)
		return ret;
	if (d->stk)
		d->stk->rec_stack = 0;
	out->stack = 0;
	out->ts = b.ts;
	out->pid = b.pid;
	out->cpu = d->cpu;
	out->type = b.type;
	out->flags = b.flags;
	out->pc = b.pc;
	out->nargs = b.nargs;
	return 0;
}

/* ---- pages ----------------------------------------------------------------- */



/* Commit the window's rows and count their flag categories. */
struct dwin decoder_commit(struct decoder *d, struct dwin w, struct decode_stats *stats)
{
	if (w.n) {
		store_commit(d->dc->st, d->cpu, &w.w, w.n, w.a, w.last, w.reordered);
		if (stats)
			for (unsigned int k = 0; k < DECODE_F_NR; k++)
				stats->flags[k] += (w.fl >> (FLAG_BITS * k)) & FLAG_MAX;
		if (stats)
			stats->flags_unrecorded += w.unrec;
		/* inside: a page without events never reserved a window (row NULL) */
		w.w.row += w.n;
		w.nmax -= w.n;
	}
	w.appended += w.n;
	w.n = 0;
	w.w.aoff = w.a;
	w.reordered = 0;
	w.fl = 0;
	w.unrec = 0;
	return w;
}

/*
 * Commit what the window holds and reserve a new one for an event at @ts.
 * Return: the window, nmax 0 when the store could not take an event (ENOMEM).
 */
__attribute__((noinline)) struct dwin
decoder_refill(struct decoder *d, struct dwin w, uint64_t ts, struct decode_stats *stats)
{
	w = decoder_commit(d, w, stats);
	if (store_reserve(d->dc->st, d->cpu, ts, &w.w)) {
		w.nmax = 0;
		return w;
	}
	w.a = w.w.aoff;
	w.amax = w.w.aend - KTOP_MAX_ARGS;
	w.nmax = w.w.nrow < FLAG_MAX ? w.w.nrow : FLAG_MAX;
	w.last = w.w.last_ts;
	return w;
}

/* An event the store could not take: decoded all the same (comms), counted bad. */
static __attribute__((noinline)) void decoder_drop(struct decoder *d, const void *data, int size,
						   uint64_t ts, struct decode_stats *stats)
{
	struct ktop_event ev;

	decoder_record(d, data, size, ts, &ev);
	if (stats)
		stats->bad++;
}





/* Decode one record into the window, after the last row. */
static inline __attribute__((always_inline)) void
decoder_add(struct decoder *d, struct dwin *w, const void *data, int size, int room, uint64_t ts,
	    struct decode_stats *stats)
{
	struct store_brow *row;
	struct dtype *dt = NULL;
	uint64_t t;
	bool rec;
	int ret;

	if (__builtin_expect(w->n == w->nmax || w->a > w->amax, 0)) {
		/* a stack goes to the last row: not to be committed before it */
		dt = decoder_stack_type(d, data, size);
		if (dt) {
			decoder_stack(d, w, dt, data, size, stats);
			return;
		}
		*w = decoder_refill(d, *w, ts, stats);
		if (!w->nmax) {
			decoder_drop(d, data, size, ts, stats);
			return;
		}
	}
	/* older than the last event: clamped to it, counted */
	t = ts < w->last ? w->last : ts;
	row = &w->w.row[w->n];
	ret = decode_one(d, data, size, room, t, row, &w->w.args[w->a], &dt);
	if (ret) {
		if (ret == DECODE_STACK_REC)
			decoder_stack(d, w, dt, data, size, stats);
		else if (stats)
			stats->bad++;
		return;
	}
	w->lt = dt;
	row->aoff = w->a;
	w->a += row->nargs;
	w->n++;
	w->reordered += ts < w->last;
	w->last = t;
	/* an event without its context counts in no category (ktop_ctx_recorded()) */
	rec = ktop_ctx_recorded(row->pc);
	w->fl += rec ? d->dc->fcat[row->flags] + d->dc->pcat[row->pc] : 0;
	w->unrec += !rec;
}

/*
 * Walk the events of a little-endian 64-bit page with rb_page.h's walk:
 * kbuffer_next_event()'s per-event indirect calls cost more than the
 * decoding itself. tests/unit/test_decode.c checks both walks give the same
 * records. Return: events appended.
 */
static int decoder_walk(struct decoder *d, const uint8_t *page, size_t len,
			struct decode_stats *stats)
{
	struct dwin w = { 0 };
	const uint8_t *rec;
	struct rb_walk rw;
	uint32_t rlen;
	int r;

	rb_walk_init(&rw, page, len, 8);
	w = decoder_unhold(d, w, stats);
	/* the loads of decode_one() may read past the record, not the page */
	while ((r = rb_walk_next(&rw, &rec, &rlen)) == RB_WALK_EVENT)
		decoder_add(d, &w, rec, (int)rlen, (int)(page + len - rec), rw.ts, stats);
	if (r == RB_WALK_BAD && stats)
		stats->bad++;
	w = decoder_hold(d, w);
	w = decoder_commit(d, w, stats);
	return w.appended;
}

int decoder_page(struct decoder *d, void *page, size_t len, struct decode_stats *stats)
{
	struct decode_ctx *dc = d->dc;
	size_t hdr = 8 + (dc->long_size == KBUFFER_LSIZE_4 ? 4 : 8);
	unsigned long long ts;
	uint64_t commit = 0;
	int missed, n = 0;
	void *data;

	if (len < hdr)
		return -EINVAL;
	memcpy(&commit, (uint8_t *)page + 8, hdr - 8);
	/* the top bits carry the missed-events marks */
	if ((commit & RB_COMMIT_MASK) + hdr > len)
		return -EINVAL;
	if (kbuffer_load_subbuffer(d->kb, page) < 0)
		return -EINVAL;
	if (stats)
		stats->pages++;
	missed = kbuffer_missed_events(d->kb);
	data = kbuffer_read_event(d->kb, &ts);
	if (missed) {
		uint64_t when = data ? ts : kbuffer_subbuf_timestamp(d->kb, page);

		store_add_lost(dc->st, d->cpu, when, missed > 0 ? (uint64_t)missed : 0,
			       STORE_LOST_KERNEL);
		if (stats) {
			stats->missed_marks++;
			if (missed > 0)
				stats->missed += missed;
		}
	}
	if (dc->fast_walk) {
		n = decoder_walk(d, page, len, stats);
	} else {
		struct dwin w = { 0 };

		w = decoder_unhold(d, w, stats);
		while (data) {
			int size = kbuffer_event_size(d->kb);

			decoder_add(d, &w, data, size, size, ts, stats);
			data = kbuffer_next_event(d->kb, &ts);
		}
		w = decoder_hold(d, w);
		w = decoder_commit(d, w, stats);
		n = w.appended;
	}
	store_publish(dc->st, d->cpu);
	if (stats)
		stats->events += n;
	return n;
}
