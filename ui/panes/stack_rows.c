// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stacks pane's rows, off screen (stack_rows.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "draw/rowfmt.h"
#include "stack_rows.h"

/* ---- folds ------------------------------------------------------------------------ */

bool sv_folded(const struct sv_folds *f, uint64_t hash)
{
	return f->all_folded != (hmap_get(&f->flip, hash) != NULL);
}

void sv_fold_set(struct sv_folds *f, uint64_t hash, bool folded)
{
	f->gen++;
	if (folded == f->all_folded)
		hmap_del(&f->flip, hash, NULL);
	else
		hmap_set(&f->flip, hash, 1);
}

void sv_fold_all(struct sv_folds *f, bool folded)
{
	hmap_clear(&f->flip);
	f->all_folded = folded;
	f->gen++;
}

void sv_folds_free(struct sv_folds *f)
{
	hmap_destroy(&f->flip);
}

static uint64_t hash_step(uint64_t parent, uint32_t name)
{
	const uint64_t pair[2] = { parent, name };

	return hash_str(pair, sizeof(pair));
}

uint64_t sv_path_hash(const uint32_t *names, uint32_t n)
{
	uint64_t h = HMAP_GOLDEN;

	for (uint32_t k = 0; k < n; k++)
		h = hash_step(h, names[k]);
	return h;
}

int sv_hashes(const struct stack_tree *t, uint64_t **h, uint32_t *n)
{
	uint32_t size = stack_tree_size(t);

	if (size > *n) {
		uint64_t *p = realloc(*h, size * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*h = p;
		*n = size;
	}
	/* a node is made after its parent: one pass in id order */
	for (uint32_t id = 0; id < size; id++) {
		const struct stack_node *nd = stack_tree_node(t, id);

		(*h)[id] = id ? hash_step((*h)[nd->parent], nd->name) : HMAP_GOLDEN;
	}
	return 0;
}

/* ---- the caller tree's rows -------------------------------------------------------- */

size_t sv_caller_rows(const struct stack_tree *t, const uint64_t *hash, const struct sv_folds *f,
		      struct sv_row *out, size_t max)
{
	const struct stack_node *root = stack_tree_node(t, 0);
	uint32_t id = root ? root->first_child : STACK_TREE_NONE;
	size_t n = 0;
	int level = 0;

	/* depth first without a stack: down to a child, else to the next sibling up */
	while (id != STACK_TREE_NONE) {
		const struct stack_node *nd = stack_tree_node(t, id);

		if (n < max)
			out[n] = (struct sv_row){ .id = id, .level = (uint16_t)level };
		n++;
		if (nd->first_child != STACK_TREE_NONE && !sv_folded(f, hash[id])) {
			id = nd->first_child;
			level++;
			continue;
		}
		while (nd->depth && nd->next_sibling == STACK_TREE_NONE) {
			nd = stack_tree_node(t, nd->parent);
			level--;
		}
		id = nd->depth ? nd->next_sibling : STACK_TREE_NONE;
	}
	return n;
}

#define SV_COLW	9

int sv_caller_name_col(bool time)
{
	return SV_COLW + 7 + (time ? SV_COLW : 0) + 2;
}

void sv_fmt_caller_header(struct richstr *rs, bool time)
{
	richstr_clear(rs);
	if (time) {
		richstr_add_right(rs, ROLE_COLHDR, "TIME", SV_COLW);
		richstr_add_right(rs, ROLE_COLHDR, "SHARE", 7);
		richstr_add_right(rs, ROLE_COLHDR, "COUNT", SV_COLW);
	} else {
		richstr_add_right(rs, ROLE_COLHDR, "COUNT", SV_COLW);
		richstr_add_right(rs, ROLE_COLHDR, "SHARE", 7);
	}
	richstr_add(rs, ROLE_COLHDR, "  FRAME (callers below)");
}

void sv_fmt_caller_row(struct richstr *rs, const struct stack_tree *t, uint32_t id,
		       unsigned int level, bool folded, bool time, uint64_t total,
		       enum ui_role role)
{
	const struct stack_node *nd = stack_tree_node(t, id);
	const char *name = stack_tree_name(t, id);
	char b[32];

	richstr_clear(rs);
	if (!nd)
		return;
	if (time) {
		richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_dur(b, sizeof(b), nd->value), SV_COLW);
		richstr_add_right(rs, ROLE_DIM, ui_fmt_share(b, sizeof(b), nd->value, total), 7);
	}
	richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_count(b, sizeof(b), nd->count), SV_COLW);
	if (!time)
		richstr_add_right(rs, ROLE_DIM, ui_fmt_share(b, sizeof(b), nd->count, total), 7);
	richstr_addf(rs, ROLE_DEFAULT, "  %*s%c ", (int)level, "",
		     nd->first_child == STACK_TREE_NONE ? ' ' : folded ? '+' : '-');
	richstr_add(rs, role, name && *name ? name : "[unknown]");
	if (*stack_tree_module(t, id))
		richstr_addf(rs, ROLE_DIM, " [%s]", stack_tree_module(t, id));
	if (folded && nd->nchildren)
		richstr_addf(rs, ROLE_DIM, " (%u callers)", nd->nchildren);
}

/* ---- the icicle ------------------------------------------------------------------ */

size_t sv_icicle_layout(const struct stack_tree *t, uint32_t zoom, int w, int h,
			struct sv_cell *out, size_t max)
{
	const struct stack_node *z = stack_tree_node(t, zoom);
	size_t n = 0;

	if (!z || w <= 0 || h <= 0 || !z->value)
		return 0;
	if (!max)
		return 1;	/* at least the zoom's cell: ask again with room */
	out[n++] = (struct sv_cell){ .id = zoom, .row = 0, .x0 = 0, .x1 = w };
	/* breadth first: out[] is the queue, so each row comes out left to right */
	for (size_t i = 0; i < n; i++) {
		const struct sv_cell p = out[i];
		const struct stack_node *pn = stack_tree_node(t, p.id);
		unsigned __int128 span = (unsigned)(p.x1 - p.x0);
		uint64_t before = 0;

		if (p.row + 1 >= h || !pn->value)
			continue;
		for (uint32_t c = pn->first_child; c != STACK_TREE_NONE;
		     c = stack_tree_node(t, c)->next_sibling) {
			uint64_t v = stack_tree_node(t, c)->value;
			int x0 = p.x0 + (int)(span * before / pn->value);
			int x1 = p.x0 + (int)(span * (before + v) / pn->value);

			/* children come largest first: the rest are narrower than a column too */
			if (span * v < pn->value)
				break;
			before += v;
			if (n == max)
				return max + 1;	/* out of room: the caller asks again with more */
			out[n++] = (struct sv_cell){ .id = c, .row = p.row + 1, .x0 = x0, .x1 = x1 };
		}
	}
	return n;
}

long sv_cell_of(const struct sv_cell *c, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].id == id)
			return (long)i;
	return -1;
}

/*
 * The frame's text in @width columns: its name, cut with ".." when it does
 * not fit; only its colour when not even three letters fit.
 */
static void cell_text(struct richstr *rs, enum ui_role role, const char *name, int width)
{
	int len = (int)strlen(name), room = width - 1;	/* the last column is the gap */

	if (room < 3) {
		richstr_pad(rs, role, rs->len + width);
		return;
	}
	if (len <= room) {
		richstr_add(rs, role, name);
		richstr_pad(rs, role, rs->len + room - len);
	} else if (room >= 4) {
		richstr_addn(rs, role, name, room - 2);
		richstr_add(rs, role, "..");
	} else {
		richstr_addn(rs, role, name, room);
	}
	richstr_add(rs, ROLE_DEFAULT, " ");
}

void sv_fmt_icicle_row(struct richstr *rs, const struct stack_tree *t, const struct sv_cell *cells,
		       size_t n, const uint8_t *roles, int row, int w, uint32_t sel,
		       const char *match)
{
	richstr_clear(rs);
	for (size_t i = 0; i < n; i++) {
		const struct sv_cell *c = &cells[i];
		const char *name;
		enum ui_role role;
		int at;

		if (c->row != row || c->x0 >= w)
			continue;
		name = stack_tree_name(t, c->id);
		if (!name || !*name)
			name = "[unknown]";
		role = (enum ui_role)roles[i];
		if (match && *match && strstr(name, match))
			role = ROLE_MATCH;
		if (c->id == sel)
			role = ROLE_SELECTED;
		richstr_pad(rs, ROLE_DEFAULT, c->x0);
		at = rs->len;
		cell_text(rs, role, name, (c->x1 < w ? c->x1 : w) - c->x0);
		richstr_truncate(rs, at + (c->x1 < w ? c->x1 : w) - c->x0);
	}
}

/* ---- frames -------------------------------------------------------------------- */

/* Kernel subsystems by function name: the first pattern that matches decides. */
static const struct {
	const char	*pat;
	enum ui_role	role;
} frame_roles[] = {
	{ "entry_SYSCALL*", ROLE_STK_SYSCALL }, { "do_syscall_*", ROLE_STK_SYSCALL },
	{ "__x64_sys_*", ROLE_STK_SYSCALL }, { "__ia32_sys_*", ROLE_STK_SYSCALL },
	{ "__se_sys_*", ROLE_STK_SYSCALL }, { "__do_sys_*", ROLE_STK_SYSCALL },
	{ "x64_sys_call", ROLE_STK_SYSCALL }, { "syscall_*", ROLE_STK_SYSCALL },
	{ "ksys_*", ROLE_STK_SYSCALL }, { "__sys_*", ROLE_STK_NET },
	{ "*irq*", ROLE_STK_IRQ }, { "*softirq*", ROLE_STK_IRQ }, { "sysvec_*", ROLE_STK_IRQ },
	{ "asm_sysvec_*", ROLE_STK_IRQ }, { "asm_common_interrupt", ROLE_STK_IRQ },
	{ "common_interrupt", ROLE_STK_IRQ }, { "*tasklet*", ROLE_STK_IRQ },
	{ "*page_fault*", ROLE_STK_MM }, { "handle_mm_fault", ROLE_STK_MM },
	{ "*alloc_pages*", ROLE_STK_MM }, { "kmem_cache_*", ROLE_STK_MM },
	{ "*kmalloc*", ROLE_STK_MM }, { "kfree*", ROLE_STK_MM }, { "*mmap*", ROLE_STK_MM },
	{ "*munmap*", ROLE_STK_MM }, { "vma_*", ROLE_STK_MM }, { "*folio*", ROLE_STK_MM },
	{ "do_anonymous_page", ROLE_STK_MM }, { "__do_fault", ROLE_STK_MM },
	{ "*_pte_*", ROLE_STK_MM }, { "tlb_*", ROLE_STK_MM }, { "exc_page_fault", ROLE_STK_MM },
	{ "*mutex*", ROLE_STK_LOCK }, { "*spin_lock*", ROLE_STK_LOCK },
	{ "*spin_unlock*", ROLE_STK_LOCK }, { "*rwsem*", ROLE_STK_LOCK },
	{ "*futex*", ROLE_STK_LOCK }, { "rt_spin_*", ROLE_STK_LOCK }, { "rtlock_*", ROLE_STK_LOCK },
	{ "down_*", ROLE_STK_LOCK }, { "up_*", ROLE_STK_LOCK }, { "*_lock_slowpath", ROLE_STK_LOCK },
	{ "*nanosleep*", ROLE_STK_TIME }, { "*hrtimer*", ROLE_STK_TIME },
	{ "*timer*", ROLE_STK_TIME }, { "*timeout*", ROLE_STK_TIME }, { "tick_*", ROLE_STK_TIME },
	{ "*sched*", ROLE_STK_SCHED }, { "pick_next_*", ROLE_STK_SCHED },
	{ "*_task_fair", ROLE_STK_SCHED }, { "*_task_rt", ROLE_STK_SCHED },
	{ "try_to_wake_up", ROLE_STK_SCHED }, { "wake_up_*", ROLE_STK_SCHED },
	{ "__wake_up*", ROLE_STK_SCHED }, { "finish_task_switch*", ROLE_STK_SCHED },
	{ "__switch_to*", ROLE_STK_SCHED }, { "context_switch", ROLE_STK_SCHED },
	{ "*wait_for_completion*", ROLE_STK_SCHED }, { "*_balance*", ROLE_STK_SCHED },
	{ "kthread", ROLE_STK_SCHED }, { "ret_from_fork*", ROLE_STK_SCHED },
	{ "smpboot_thread_fn", ROLE_STK_SCHED }, { "worker_thread", ROLE_STK_SCHED },
	{ "tcp_*", ROLE_STK_NET }, { "udp*", ROLE_STK_NET }, { "ip_*", ROLE_STK_NET },
	{ "ip6_*", ROLE_STK_NET }, { "ipv6_*", ROLE_STK_NET }, { "inet*", ROLE_STK_NET },
	{ "sock_*", ROLE_STK_NET }, { "sk_*", ROLE_STK_NET }, { "__sk_*", ROLE_STK_NET },
	{ "*skb*", ROLE_STK_NET }, { "net_*", ROLE_STK_NET }, { "*netif*", ROLE_STK_NET },
	{ "napi_*", ROLE_STK_NET }, { "__napi_*", ROLE_STK_NET }, { "unix_*", ROLE_STK_NET },
	{ "dev_*xmit*", ROLE_STK_NET }, { "nf_*", ROLE_STK_NET }, { "*_sendmsg", ROLE_STK_NET },
	{ "*_recvmsg", ROLE_STK_NET },
	{ "blk_*", ROLE_STK_BLOCK }, { "__blk_*", ROLE_STK_BLOCK }, { "*bio*", ROLE_STK_BLOCK },
	{ "nvme_*", ROLE_STK_BLOCK }, { "scsi_*", ROLE_STK_BLOCK }, { "virtblk_*", ROLE_STK_BLOCK },
	{ "*_rq_*", ROLE_STK_BLOCK }, { "bdev_*", ROLE_STK_BLOCK },
	{ "vfs_*", ROLE_STK_FS }, { "*_file*", ROLE_STK_FS }, { "ext4_*", ROLE_STK_FS },
	{ "xfs_*", ROLE_STK_FS }, { "btrfs_*", ROLE_STK_FS }, { "path_*", ROLE_STK_FS },
	{ "do_sys_open*", ROLE_STK_FS }, { "do_filp_open", ROLE_STK_FS },
	{ "*_fput*", ROLE_STK_FS }, { "pipe_*", ROLE_STK_FS }, { "seq_*", ROLE_STK_FS },
	{ "*epoll*", ROLE_STK_FS }, { "ep_*", ROLE_STK_FS }, { "*poll*", ROLE_STK_FS },
	{ "*select*", ROLE_STK_FS }, { "*_iter", ROLE_STK_FS }, { "*dentry*", ROLE_STK_FS },
	{ "*inode*", ROLE_STK_FS }, { "*_read", ROLE_STK_FS }, { "*_write", ROLE_STK_FS },
	{ "tty_*", ROLE_STK_FS }, { "n_tty_*", ROLE_STK_FS }, { "proc_*", ROLE_STK_FS },
	{ "kernfs_*", ROLE_STK_FS }, { "tracefs_*", ROLE_STK_FS },
};

enum ui_role sv_frame_role(const char *name, uint8_t kind, const char *module)
{
	if (!name || !*name || !strcmp(name, "[unknown]"))
		return ROLE_STK_UNKNOWN;
	if (kind == STACK_FRAME_USER) {
		const char *base = module ? strrchr(module, '/') : NULL;

		base = base ? base + 1 : module;
		if (base && (!strncmp(base, "lib", 3) || !strncmp(base, "ld-", 3) ||
			     strstr(base, ".so")))
			return ROLE_STK_LIB;
		return ROLE_STK_USER;
	}
	for (size_t i = 0; i < sizeof(frame_roles) / sizeof(frame_roles[0]); i++)
		if (!fnmatch(frame_roles[i].pat, name, 0))
			return frame_roles[i].role;
	return ROLE_STK_KERNEL;
}

/* The next node in depth-first order (children by value), wrapping to the root's first child. */
static uint32_t dfs_next(const struct stack_tree *t, uint32_t id)
{
	const struct stack_node *nd = stack_tree_node(t, id);

	if (nd->first_child != STACK_TREE_NONE)
		return nd->first_child;
	while (nd->depth && nd->next_sibling == STACK_TREE_NONE)
		nd = stack_tree_node(t, nd->parent);
	return nd->depth ? nd->next_sibling : stack_tree_node(t, 0)->first_child;
}

/* The last node of @id's subtree in depth-first order. */
static uint32_t dfs_last(const struct stack_tree *t, uint32_t id)
{
	for (;;) {
		const struct stack_node *nd = stack_tree_node(t, id);
		uint32_t c = nd->first_child;

		if (c == STACK_TREE_NONE)
			return id;
		while (stack_tree_node(t, c)->next_sibling != STACK_TREE_NONE)
			c = stack_tree_node(t, c)->next_sibling;
		id = c;
	}
}

/* The node before @id in depth-first order, wrapping to the last node. */
static uint32_t dfs_prev(const struct stack_tree *t, uint32_t id)
{
	const struct stack_node *nd = stack_tree_node(t, id);
	uint32_t c, prev = STACK_TREE_NONE;

	if (!nd->depth)
		return dfs_last(t, 0);
	for (c = stack_tree_node(t, nd->parent)->first_child; c != id;
	     c = stack_tree_node(t, c)->next_sibling)
		prev = c;
	if (prev != STACK_TREE_NONE)
		return dfs_last(t, prev);
	return nd->parent ? nd->parent : dfs_last(t, 0);
}

uint32_t sv_find(const struct stack_tree *t, uint32_t from, const char *needle, int dir)
{
	uint32_t size = stack_tree_size(t), id;

	if (size < 2 || !needle || !*needle)
		return STACK_TREE_NONE;
	if (from >= size)
		from = 0;
	id = from;
	for (uint32_t k = 0; k < size; k++) {
		const char *name;

		id = dir > 0 ? dfs_prev(t, id) : dfs_next(t, id);
		name = stack_tree_name(t, id);
		if (id && name && strstr(name, needle))
			return id;
		if (id == from)
			break;
	}
	return STACK_TREE_NONE;
}

uint64_t sv_match_value(const struct stack_tree *t, uint32_t zoom, const char *needle,
			uint32_t *nodes)
{
	const struct stack_node *z = stack_tree_node(t, zoom);
	uint32_t id, last;
	uint64_t v = 0;

	*nodes = 0;
	if (!z || !needle || !*needle)
		return 0;
	if (zoom && strstr(stack_tree_name(t, zoom), needle)) {
		/* the frame zoomed into: everything shown is under the match */
		*nodes = 1;
		return z->value;
	}
	if (z->first_child == STACK_TREE_NONE)
		return 0;
	last = dfs_last(t, zoom);
	for (id = z->first_child;; id = dfs_next(t, id)) {
		const char *name = stack_tree_name(t, id);

		if (name && strstr(name, needle)) {
			(*nodes)++;
			v += stack_tree_node(t, id)->value;
			/* what is under a match is in its value already: past its subtree */
			if (id == last || dfs_last(t, id) == last)
				break;
			id = dfs_last(t, id);
			continue;
		}
		if (id == last)
			break;
	}
	return v;
}
