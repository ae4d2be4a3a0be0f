// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktop's probe events in the kernel (see probe.h): what the kernel offers,
 * where a spec's place is (BTF, kallsyms, available_filter_functions, an
 * event's format, an ELF file), and the definitions' life: written with
 * O_APPEND to dynamic_events (never O_TRUNC, which would remove every
 * dynamic event of every tool), refused ones explained from error_log,
 * removed by name, one "-:GROUP/EVENT" line each.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>
#include <zlib.h>

#include "lib/file.h"
#include "lib/strutil.h"
#include "probe.h"
#include "probe_elf.h"
#include "kernel/symbols.h"

#define PROBE_SET_MAX	64
#define EM_LINE		(PROBE_NAME_MAX * 2 + 8)

struct probe_set {
	char			tracefs[256];
	char			group[PROBE_NAME_MAX];
	struct probe_caps	caps;
	struct probe_btf	*btf;		/* loaded on first need: see set_btf() */
	bool			btf_tried;
	char			btf_path[256];	/* "": the running kernel's */
	unsigned int		n;
	struct probe_def	*defs[PROBE_SET_MAX];
	char			(*retired)[PROBE_NAME_MAX];	/* names of removed probes */
	unsigned int		nretired, cap_retired;
	pid_t			owner;
};

/*
 * The emergency path's copy of the live set: the removal lines and the
 * files they go to, prepared when a probe is created. An entry is written
 * whole before "used" is set, and "used" is cleared before a normal removal.
 */
static struct {
	char			line[PROBE_SET_MAX][EM_LINE];
	char			path[PROBE_SET_MAX][300];
	volatile sig_atomic_t	used[PROBE_SET_MAX];
	volatile pid_t		owner;
} em;

/* ---- small file helpers ------------------------------------------------------ */

static bool path_exists(const char *path)
{
	return !access(path, F_OK);
}

/*
 * Append one line to a definitions file. O_APPEND, never O_TRUNC:
 * truncating dynamic_events removes every dynamic event on the system.
 * Context: async-signal-safe.
 */
static int append_line(const char *path, const char *line)
{
	char buf[PROBE_TEXT_MAX + 2];
	size_t n = strlen(line);

	if (n + 1 >= sizeof(buf))
		return -E2BIG;
	memcpy(buf, line, n);
	buf[n] = '\n';
	buf[n + 1] = 0;
	return file_write_str(path, buf, O_APPEND);
}

/* ---- capabilities ------------------------------------------------------------- */

/* 1: set, 0: not set, -1: no /proc/config.gz */
static int kconfig_has(const char *opt)
{
	char line[256], on[128], off[128];
	gzFile gz = gzopen("/proc/config.gz", "rb");
	int ret = 0;

	if (!gz)
		return -1;
	snprintf(on, sizeof(on), "%s=", opt);
	snprintf(off, sizeof(off), "# %s is not set", opt);
	while (gzgets(gz, line, sizeof(line))) {
		if (!strncmp(line, on, strlen(on))) {
			ret = 1;
			break;
		}
		if (!strncmp(line, off, strlen(off)))
			break;
	}
	gzclose(gz);
	return ret;
}

/*
 * Scan /proc/kallsyms for text symbol @name (its names are listed to anyone,
 * with the addresses zeroed without root). @clones receives name.isra.0 and
 * the like; @near, when not NULL, names within a small edit distance.
 * Return: 1 found, 0 not, -errno when unreadable.
 */
struct ksym_find {
	const char	*name;
	size_t		l, clen, cn, nlen, nn;
	char		*clones, *near;
	int		found, cap;
};

static int ksym_find_line(const struct symbols_line *sl, const char *line, size_t len, void *arg)
{
	struct ksym_find *k = arg;
	char sym[256];

	if ((sl->type != 't' && sl->type != 'T') || sl->name_len >= sizeof(sym))
		return 0;
	memcpy(sym, sl->name, sl->name_len);
	sym[sl->name_len] = '\0';
	if (!strcmp(sym, k->name)) {
		k->found = 1;
	} else if (!strncmp(sym, k->name, k->l) && sym[k->l] == '.') {
		if (k->cn < k->clen && !strstr(k->clones, sym))
			k->cn += snprintf(k->clones + k->cn, k->clen - k->cn, "%s%s",
					  k->cn ? ", " : "", sym);
	} else if (k->near && k->nn < k->nlen &&
		   probe_edit_distance(sym, k->name, k->cap) <= k->cap && !strstr(k->near, sym)) {
		k->nn += snprintf(k->near + k->nn, k->nlen - k->nn, "%s%s", k->nn ? ", " : "", sym);
	}
	return 0;
}

static int kallsyms_find(const char *name, char *clones, size_t clen, char *near, size_t nlen)
{
	struct ksym_find k = {
		.name = name, .l = strlen(name), .clen = clen, .nlen = nlen,
		.clones = clones, .near = near, .cap = strlen(name) < 8 ? 1 : 2,
	};
	int ret;

	if (clen)
		clones[0] = '\0';
	if (nlen)
		near[0] = '\0';
	ret = symbols_scan("/proc/kallsyms", ksym_find_line, &k);
	return ret < 0 ? ret : k.found;
}

const char *probe_example(const struct probe_caps *c)
{
	if (!c || c->kprobe == c->uprobe)
		return "'vfs_read count' (a kernel function) or 'bash:readline' (a uprobe)";
	if (c->kprobe)
		return "'vfs_read count' (a kernel function)";
	return "'bash:readline' (a uprobe: this kernel has no kprobe_events)";
}

int probe_caps_read(const char *tracefs, struct probe_caps *c)
{
	char path[512], *readme;
	int cfg;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/README", tracefs);
	readme = file_read_text(path);
	if (!readme)
		return errno ? -errno : -ENOENT;
	snprintf(path, sizeof(path), "%s/dynamic_events", tracefs);
	c->dynamic_events = path_exists(path);
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs);
	c->kprobe = path_exists(path);
	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs);
	c->uprobe = path_exists(path);
	c->eprobe = c->dynamic_events;
	probe_caps_from_readme(c, readme);
	free(readme);
	if (c->eprobe) {
		cfg = kconfig_has("CONFIG_EPROBE_EVENTS");
		if (cfg >= 0) {
			c->eprobe = cfg;
			snprintf(c->eprobe_why, sizeof(c->eprobe_why), "%s (/proc/config.gz)",
				 cfg ? "CONFIG_EPROBE_EVENTS=y" : "CONFIG_EPROBE_EVENTS is not set");
		} else {
			c->eprobe = kallsyms_find("eprobe_dyn_event_create", NULL, 0, NULL, 0) == 1;
			snprintf(c->eprobe_why, sizeof(c->eprobe_why), "%s eprobe_dyn_event_create",
				 c->eprobe ? "kallsyms has" : "kallsyms has no");
		}
	} else {
		snprintf(c->eprobe_why, sizeof(c->eprobe_why), "no dynamic_events");
	}
	c->btf = !access("/sys/kernel/btf/vmlinux", R_OK);
	return 0;
}

/* ---- the set -------------------------------------------------------------------- */

int probe_set_new(struct probe_set **out, const char *tracefs, const char *btf_path,
		  char *err, size_t errlen)
{
	struct probe_set *ps;
	int ret;

	*out = NULL;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	snprintf(ps->tracefs, sizeof(ps->tracefs), "%s", tracefs);
	snprintf(ps->group, sizeof(ps->group), "ktop_%d", getpid());
	ps->owner = getpid();
	ret = probe_caps_read(tracefs, &ps->caps);
	if (ret) {
		snprintf(err, errlen, "cannot read %s/README to tell which probe events this "
			 "kernel has: %s", tracefs, strerror(-ret));
		free(ps);
		return ret;
	}
	if (!ps->caps.kprobe && !ps->caps.uprobe && !ps->caps.fprobe && !ps->caps.eprobe) {
		snprintf(err, errlen, "this kernel has no probe events (CONFIG_KPROBE_EVENTS, "
			 "CONFIG_UPROBE_EVENTS, CONFIG_FPROBE_EVENTS, CONFIG_EPROBE_EVENTS)");
		free(ps);
		return -ENOTSUP;
	}
	snprintf(ps->btf_path, sizeof(ps->btf_path), "%s", btf_path ? btf_path : "");
	if (btf_path)
		ps->caps.btf = !access(btf_path, R_OK);
	em.owner = ps->owner;
	*out = ps;
	return 0;
}

/*
 * The kernel's BTF, read when a spec first needs it (a kernel function, an
 * eprobe, completion): a uprobe-only run does not pay for it. NULL: none.
 */
static struct probe_btf *set_btf(struct probe_set *ps)
{
	if (!ps->btf_tried) {
		ps->btf_tried = true;
		if (probe_btf_open(&ps->btf, ps->btf_path[0] ? ps->btf_path : NULL))
			ps->btf = NULL;
		ps->caps.btf = ps->btf != NULL;
	}
	return ps->btf;
}

const char *probe_set_group(const struct probe_set *ps)
{
	return ps->group;
}

const struct probe_caps *probe_set_caps(const struct probe_set *ps)
{
	return &ps->caps;
}

unsigned int probe_set_count(const struct probe_set *ps)
{
	return ps ? ps->n : 0;
}

const struct probe_def *probe_set_get(const struct probe_set *ps, unsigned int i)
{
	return ps && i < ps->n ? ps->defs[i] : NULL;
}

/* The file a definition goes to. */
static void def_file(const struct probe_set *ps, enum probe_kind k, char *path, size_t len)
{
	bool user = k == PROBE_UPROBE || k == PROBE_URETPROBE;

	if (ps->caps.dynamic_events)
		snprintf(path, len, "%s/dynamic_events", ps->tracefs);
	else
		snprintf(path, len, "%s/%s", ps->tracefs, user ? "uprobe_events" : "kprobe_events");
}

/* ---- where a spec's place is ------------------------------------------------- */

/* 1: listed, 0: not, -1: cannot tell (the file is refused, as under lockdown) */
static int filter_function(const char *tracefs, const char *name)
{
	char path[512], line[512];
	size_t l = strlen(name);
	FILE *fp;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (!ret && fgets(line, sizeof(line), fp))
		ret = !strncmp(line, name, l) && (line[l] == '\n' || line[l] == ' ');
	fclose(fp);
	return ret;
}

/* The fields of event SYSTEM/EVENT, from its format file. */
static int event_fields(const char *tracefs, const char *sys, const char *ev,
			struct probe_efield *f, unsigned int max, unsigned int *n)
{
	char path[1024], *text, *p;

	*n = 0;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, ev);
	text = file_read_text(path);
	if (!text)
		return -errno;
	for (p = text; (p = strstr(p, "field:")) && *n < max; p++) {
		char decl[256], *semi, *name, *br;
		int size = 0, sgn = 0;

		semi = strchr(p, ';');
		if (!semi || semi - p - 6 >= (long)sizeof(decl))
			break;
		snprintf(decl, sizeof(decl), "%.*s", (int)(semi - p - 6), p + 6);
		sscanf(semi, ";%*[ \t]offset:%*d;%*[ \t]size:%d;%*[ \t]signed:%d", &size, &sgn);
		name = strrchr(decl, ' ');
		if (!name)
			continue;
		*name++ = '\0';
		if (!strncmp(name, "common_", 7))
			continue;
		br = strchr(name, '[');
		str_fmt(f[*n].ctype, sizeof(f[*n].ctype), "%s%s", decl, br ? br : "");
		if (br)
			*br = '\0';
		snprintf(f[*n].name, sizeof(f[*n].name), "%s", name);
		f[*n].size = size;
		f[*n].is_signed = sgn;
		(*n)++;
	}
	free(text);
	return 0;
}

static bool event_exists(const char *tracefs, const char *sys, const char *ev)
{
	char path[1024];

	str_fmt(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, ev);
	return path_exists(path);
}

struct resolved {
	struct probe_target	tg;
	struct probe_func	func;
	struct probe_efield	efields[64];
	char			how[256];
};

static int resolve_kernel(struct probe_set *ps, const struct probe_spec *sp, struct resolved *r,
			  char *err, size_t errlen)
{
	const struct probe_caps *c = &ps->caps;
	const char *fn = sp->target;
	char clones[256], near[256];
	const char *sug[6];
	int in_btf, in_ksyms, traceable, ns;

	if (!c->kprobe && !c->fprobe) {
		snprintf(err, errlen, "this kernel has no kprobe or fprobe events "
			 "(CONFIG_KPROBE_EVENTS, CONFIG_FPROBE_EVENTS): kernel functions cannot "
			 "be probed here%s", c->uprobe ? "; user programs can (BINARY:SYMBOL)" : "");
		return -ENOTSUP;
	}
	in_btf = set_btf(ps) && !probe_btf_func(ps->btf, fn, &r->func);
	in_ksyms = kallsyms_find(fn, clones, sizeof(clones), in_btf ? NULL : near,
				 in_btf ? 0 : sizeof(near));
	if (!in_btf && in_ksyms <= 0) {
		size_t n = 0;

		ns = ps->btf ? probe_btf_suggest(ps->btf, fn, sug, 6) : 0;
		n = snprintf(err, errlen, "unknown function '%s': not in the kernel's %s", fn,
			     ps->btf ? "BTF nor in /proc/kallsyms" : "/proc/kallsyms");
		for (int i = 0; i < ns && n < errlen; i++)
			n += snprintf(err + n, errlen - n, "%s%s", i ? ", " : "; did you mean ",
				      sug[i]);
		if (!ns && near[0] && n < errlen)
			n += snprintf(err + n, errlen - n, "; did you mean %s", near);
		if (clones[0] && n < errlen)
			snprintf(err + n, errlen - n, "; its out-of-line copies: %s", clones);
		if (!ns && !near[0] && !clones[0] && n < errlen)
			snprintf(err + n, errlen - n, "; see %s/available_filter_functions",
				 ps->tracefs);
		return -ENOENT;
	}
	/*
	 * The functions it went into are not named: only the kernel's DWARF
	 * (DW_TAG_inlined_subroutine) records them, and ktop reads BTF and
	 * kallsyms, which do not.
	 */
	if (in_btf && in_ksyms == 0) {
		snprintf(err, errlen, "%s cannot be probed: the kernel's BTF describes it but "
			 "it is not a symbol in /proc/kallsyms: the compiler inlined it into its "
			 "callers (or dropped it)%s%s; probe the functions that call it instead", fn,
			 clones[0] ? "; its out-of-line copies: " : "", clones);
		return -ENOENT;
	}
	r->tg.func = in_btf ? &r->func : NULL;
	traceable = filter_function(ps->tracefs, fn);
	if (c->fprobe && traceable != 0 && !sp->has_offset) {
		r->tg.kind = sp->ret ? PROBE_FEXIT : PROBE_FPROBE;
	} else if (c->kprobe && (!sp->ret || c->kretprobe)) {
		r->tg.kind = sp->ret ? PROBE_KRETPROBE : PROBE_KPROBE;
		if (c->fprobe && traceable == 0)
			snprintf(r->how, sizeof(r->how), "not in available_filter_functions "
				 "(notrace): a %s, not an fprobe", sp->ret ? "kretprobe" : "kprobe");
	} else {
		snprintf(err, errlen, "%s cannot be probed here: %s", fn, traceable == 0 ?
			 "it is not in available_filter_functions (notrace), which fprobes need, "
			 "and this kernel has no kprobe events" : sp->has_offset ?
			 "fprobes take no +OFFS, and this kernel has no kprobe events" :
			 "this kernel has no kretprobes");
		return -ENOTSUP;
	}
	str_fmt(r->tg.name, sizeof(r->tg.name), "%s", fn);
	if (sp->has_offset)
		str_fmt(r->tg.place, sizeof(r->tg.place), "%s+%lu", fn, sp->offset);
	else
		str_fmt(r->tg.place, sizeof(r->tg.place), "%s", fn);
	return 0;
}

static int resolve_event(struct probe_set *ps, const char *sys, const char *ev,
			 struct resolved *r, char *err, size_t errlen)
{
	int ret;

	if (!ps->caps.eprobe) {
		snprintf(err, errlen, "%s:%s is a trace event, and this kernel has no eprobes "
			 "(CONFIG_EPROBE_EVENTS: %s); enable the event itself with -e %s:%s", sys,
			 ev, ps->caps.eprobe_why, sys, ev);
		return -ENOTSUP;
	}
	if (!strncmp(sys, "ktop_", 5) || !strcmp(sys, "eprobes")) {
		snprintf(err, errlen, "%s:%s is a probe event itself: eprobes attach to static "
			 "trace events", sys, ev);
		return -EINVAL;
	}
	ret = event_fields(ps->tracefs, sys, ev, r->efields, 64, &r->tg.nefields);
	if (ret) {
		snprintf(err, errlen, "cannot read the format of %s:%s: %s", sys, ev,
			 strerror(-ret));
		return ret;
	}
	r->tg.kind = PROBE_EPROBE;
	r->tg.efields = r->efields;
	r->tg.user_ptrs = !strcmp(sys, "syscalls");
	snprintf(r->tg.name, sizeof(r->tg.name), "%s", ev);
	snprintf(r->tg.place, sizeof(r->tg.place), "%s.%s", sys, ev);
	return 0;
}

static int resolve_user(struct probe_set *ps, const struct probe_spec *sp, struct resolved *r,
			char *err, size_t errlen)
{
	char path[PATH_MAX], how[160];
	struct probe_elf_sym sym;
	char *near[6];
	int ret, nn;

	if (!ps->caps.uprobe || (sp->ret && !ps->caps.uretprobe)) {
		snprintf(err, errlen, "this kernel has no %s events (CONFIG_UPROBE_EVENTS)",
			 sp->ret ? "uretprobe" : "uprobe");
		return -ENOTSUP;
	}
	ret = probe_elf_find(sp->target, path, sizeof(path), how, sizeof(how));
	if (ret) {
		if (sp->place == PROBE_PLACE_BINARY)
			snprintf(err, errlen, "%s: %s", sp->target, strerror(-ret));
		else
			snprintf(err, errlen, "'%s:%s': no trace event %s:%s, and no library or "
				 "program named %s (looked in ktop's own libraries, the dynamic "
				 "linker's directories and $PATH); give a path", sp->target,
				 sp->symbol[0] ? sp->symbol : "", sp->target, sp->symbol, sp->target);
		return ret;
	}
	if (strpbrk(path, " \t\n")) {
		snprintf(err, errlen, "%s: the kernel's uprobe syntax cannot take a path with "
			 "spaces", path);
		return -EINVAL;
	}
	r->tg.kind = sp->ret ? PROBE_URETPROBE : PROBE_UPROBE;
	if (sp->symbol[0]) {
		ret = probe_elf_symbol(path, sp->symbol, &sym);
		if (ret == -ENOENT) {
			size_t n;

			nn = probe_elf_symbols(path, sp->symbol, true, near, 6);
			n = snprintf(err, errlen, "%s has no function symbol '%s'", path, sp->symbol);
			for (int i = 0; i < nn && n < errlen; i++)
				n += snprintf(err + n, errlen - n, "%s%s", i ? ", " : "; did you mean ",
					      near[i]);
			if (nn <= 0 && n < errlen)
				snprintf(err + n, errlen - n, " (stripped of it, or not a function)");
			probe_elf_symbols_free(near, nn > 0 ? nn : 0);
			return ret;
		}
		if (ret) {
			snprintf(err, errlen, "%s: cannot read its ELF symbols: %s", path,
				 ret == -ENOEXEC ? "not an ELF file, or no loadable segment holds "
				 "the symbol" : strerror(-ret));
			return ret;
		}
		snprintf(r->tg.place, sizeof(r->tg.place), "%s:0x%lx", path,
			 sym.offset + (sp->has_offset ? sp->offset : 0));
		str_fmt(r->tg.name, sizeof(r->tg.name), "%s", sp->symbol);
		str_fmt(r->how, sizeof(r->how), "%s found as %s; %s at 0x%lx (vaddr 0x%lx%s%s)",
			 sp->target, how, sp->symbol, sym.offset, sym.vaddr,
			 sym.dynsym ? ", .dynsym" : "", sym.ifunc ? ", an IFUNC: its resolver" : "");
	} else {
		snprintf(r->tg.place, sizeof(r->tg.place), "%s:0x%lx", path, sp->offset);
		snprintf(r->tg.name, sizeof(r->tg.name), "0x%lx", sp->offset);
		str_fmt(r->how, sizeof(r->how), "%s found as %s", sp->target, how);
	}
	return 0;
}

static int resolve(struct probe_set *ps, const struct probe_spec *sp, struct resolved *r,
		   char *err, size_t errlen)
{
	const char *dot = strchr(sp->target, '.');

	memset(&r->tg, 0, sizeof(r->tg));
	r->how[0] = '\0';
	switch (sp->place) {
	case PROBE_PLACE_FUNC:
		/* the kernel's SYSTEM.EVENT, when such an event exists */
		if (dot && !strchr(dot + 1, '.') && !sp->has_offset) {
			char sys[256];

			snprintf(sys, sizeof(sys), "%.*s", (int)(dot - sp->target), sp->target);
			if (event_exists(ps->tracefs, sys, dot + 1))
				return resolve_event(ps, sys, dot + 1, r, err, errlen);
		}
		return resolve_kernel(ps, sp, r, err, errlen);
	case PROBE_PLACE_COLON:
		if (!sp->has_offset && event_exists(ps->tracefs, sp->target, sp->symbol))
			return resolve_event(ps, sp->target, sp->symbol, r, err, errlen);
		/* fall through */
	case PROBE_PLACE_BINARY:
		return resolve_user(ps, sp, r, err, errlen);
	}
	return -EINVAL;
}

/* ---- preview and create ------------------------------------------------------ */

static bool probe_retired(const struct probe_set *ps, const char *name)
{
	for (unsigned int i = 0; i < ps->nretired; i++)
		if (!strcmp(ps->retired[i], name))
			return true;
	return false;
}

static bool event_taken(const struct probe_set *ps, const char *name)
{
	char path[1024];

	for (unsigned int i = 0; i < ps->n; i++)
		if (!strcmp(ps->defs[i]->event, name))
			return true;
	if (probe_retired(ps, name))
		return true;
	snprintf(path, sizeof(path), "%s/events/%s/%s", ps->tracefs, ps->group, name);
	return path_exists(path);
}

static void spec_err(const struct probe_err *pe, const char *spec, char *err, size_t errlen)
{
	probe_err_format(pe, spec, err, errlen);
}

int probe_preview(struct probe_set *ps, const char *spec, struct probe_def *def, char *err,
		  size_t errlen)
{
	struct probe_spec *sp = NULL;
	struct resolved *r = NULL;
	char event[PROBE_NAME_MAX];
	struct probe_err pe;
	int ret, k = 2;

	err[0] = '\0';
	ret = probe_spec_parse(spec, &sp, &pe);
	if (ret) {
		spec_err(&pe, spec, err, errlen);
		return ret;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = resolve(ps, sp, r, err, errlen);
	if (ret)
		goto out;
	probe_default_event(sp, r->tg.name, event, sizeof(event));
	if (sp->event[0] && event_taken(ps, event)) {
		if (probe_retired(ps, event))
			snprintf(err, errlen, "%s named a probe removed earlier: its recorded "
				 "events keep that name; choose another EVENT=", event);
		else
			snprintf(err, errlen, "there is a probe named %s already", event);
		ret = -EEXIST;
		goto out;
	}
	while (event_taken(ps, event)) {
		probe_default_event(sp, r->tg.name, event, sizeof(event) - 8);
		str_fmt(event + strlen(event), 8, "_%d", k++);
	}
	/* user programs have no BTF: a uprobe-only run does not read the kernel's */
	ret = probe_gen(sp, &ps->caps, r->tg.kind == PROBE_UPROBE ||
			r->tg.kind == PROBE_URETPROBE ? ps->btf : set_btf(ps), &r->tg, ps->group,
			event, def, &pe);
	if (ret) {
		spec_err(&pe, spec, err, errlen);
		goto out;
	}
	snprintf(def->how, sizeof(def->how), "%s", r->how);
out:
	free(r);
	probe_spec_free(sp);
	return ret;
}

/*
 * The error_log entry of the refused definition @line: the message and the
 * caret's position in @line. Return: true when found.
 */
static bool error_log_find(const char *tracefs, const char *line, char *msg, size_t mlen,
			   int *pos)
{
	static const char cmd[] = "  Command: ";
	char path[512], *text, *p, *found = NULL;
	bool ok = false;

	snprintf(path, sizeof(path), "%s/error_log", tracefs);
	text = file_read_text(path);
	if (!text)
		return false;
	for (p = text; (p = strstr(p, cmd)); p++) {
		size_t n = strcspn(p + sizeof(cmd) - 1, "\n");

		if (n && !strncmp(p + sizeof(cmd) - 1, line, n))
			found = p;
	}
	if (found) {
		char *prev = found, *e, *caret;

		while (prev > text && prev[-1] != '\n')
			prev--;
		/* the message line is the one before */
		if (prev > text) {
			char *start = prev - 1;

			while (start > text && start[-1] != '\n')
				start--;
			e = strstr(start, "error: ");
			if (e && e < prev)
				snprintf(msg, mlen, "%.*s", (int)strcspn(e + 7, "\n"), e + 7);
		}
		caret = strchr(found, '\n');
		if (caret && (e = strchr(caret + 1, '^'))) {
			*pos = (int)(e - caret - 1) - (int)(sizeof(cmd) - 1);
			ok = *pos >= 0;
		}
	}
	free(text);
	return ok;
}

/*
 * Why the kernel would not register a probe on a kernel function. A kprobe is
 * refused on the kprobe blacklist: NOKPROBE_SYMBOL functions and the entry,
 * noinstr and .kprobes.text sections (notrace does not stop a kprobe); an
 * fprobe where ftrace cannot attach (notrace). The functions that call it
 * are not named: neither kallsyms nor BTF records callers.
 */
static void not_probed(const struct probe_def *def, char *err, size_t errlen)
{
	const char *fn = strchr(def->line, ' '), *why;
	bool notrace = strstr(def->how, "notrace");

	if (!fn)
		return;
	fn++;
	if (def->kind == PROBE_FPROBE || def->kind == PROBE_FEXIT)
		why = "ftrace cannot attach an fprobe to it (notrace)";
	else if (def->kind == PROBE_KPROBE || def->kind == PROBE_KRETPROBE)
		why = "the kernel keeps kprobes out of it (the kprobe blacklist: NOKPROBE_SYMBOL, "
		      "entry or noinstr code, what the probes themselves run)";
	else
		return;
	snprintf(err, errlen, "\n%.*s cannot be probed: %s%s; probe the functions that call it "
		 "instead", (int)strcspn(fn, "+% "), fn, notrace ? "it is notrace (not in "
		 "available_filter_functions: no fprobe), and " : "", why);
}

static void kernel_refused(const struct probe_set *ps, const struct probe_def *def, int ret,
			   char *err, size_t errlen)
{
	char msg[256] = "";
	int pos = -1;
	size_t n;

	if (error_log_find(ps->tracefs, def->line, msg, sizeof(msg), &pos)) {
		n = snprintf(err, errlen, "the kernel refused the definition: %s%s\n  %s\n  %*s^",
			     msg[0] ? msg : strerror(-ret), "", def->line, pos, "");
	} else {
		n = snprintf(err, errlen, "the kernel refused the definition (%s):\n  %s",
			     strerror(-ret), def->line);
	}
	if (strstr(msg, "Failed to register probe event") && n < errlen)
		not_probed(def, err + n, errlen - n);
}

static void em_add(const struct probe_set *ps, unsigned int i)
{
	const struct probe_def *d = ps->defs[i];

	if (i >= PROBE_SET_MAX)
		return;
	em.used[i] = 0;
	snprintf(em.line[i], sizeof(em.line[i]), "-:%s/%s", d->group, d->event);
	def_file(ps, d->kind, em.path[i], sizeof(em.path[i]));
	em.used[i] = 1;
}

int probe_create(struct probe_set *ps, const char *spec, struct probe_def *def, char *err,
		 size_t errlen)
{
	struct probe_def *d;
	char path[512];
	int ret;

	if (ps->n == PROBE_SET_MAX) {
		snprintf(err, errlen, "too many probes (at most %d)", PROBE_SET_MAX);
		return -ENOSPC;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = probe_preview(ps, spec, d, err, errlen);
	if (ret)
		goto out_free;
	snprintf(d->spec, sizeof(d->spec), "%s", spec);
	if (d->kind == PROBE_EPROBE && !ps->caps.dynamic_events) {
		snprintf(err, errlen, "eprobes are defined through dynamic_events, which this "
			 "kernel lacks");
		ret = -ENOTSUP;
		goto out_free;
	}
	def_file(ps, d->kind, path, sizeof(path));
	ret = append_line(path, d->line);
	if (ret) {
		kernel_refused(ps, d, ret, err, errlen);
		goto out_free;
	}
	ps->defs[ps->n] = d;
	em_add(ps, ps->n);
	ps->n++;
	if (def)
		*def = *d;
	return 0;

out_free:
	free(d);
	return ret;
}

static int remove_at(struct probe_set *ps, unsigned int i, char *err, size_t errlen)
{
	struct probe_def *d = ps->defs[i];
	char path[512], line[EM_LINE], en[1024];
	int ret;

	def_file(ps, d->kind, path, sizeof(path));
	snprintf(line, sizeof(line), "-:%s/%s", d->group, d->event);
	ret = append_line(path, line);
	if (ret == -EBUSY) {
		/* still enabled at the top level (a top-level session): it is ours */
		snprintf(en, sizeof(en), "%s/events/%s/%s/enable", ps->tracefs, d->group, d->event);
		file_write_str(en, "0", 0);
		ret = append_line(path, line);
	}
	if (ret && ret != -ENOENT) {
		snprintf(err, errlen, "cannot remove probe event %s/%s: %s%s", d->group, d->event,
			 strerror(-ret), ret == -EBUSY ? " (still enabled in an instance)" : "");
		return ret;
	}
	/* the name stays taken: see probe_remove() in probe.h */
	if (ps->nretired == ps->cap_retired) {
		unsigned int cap = ps->cap_retired ? ps->cap_retired * 2 : 16;
		void *nr = realloc(ps->retired, cap * sizeof(*ps->retired));

		if (nr) {
			ps->retired = nr;
			ps->cap_retired = cap;
		}
	}
	if (ps->nretired < ps->cap_retired)
		snprintf(ps->retired[ps->nretired++], PROBE_NAME_MAX, "%s", d->event);
	/* keep the emergency table in the set's order */
	for (unsigned int k = i; k + 1 < ps->n; k++) {
		ps->defs[k] = ps->defs[k + 1];
		em_add(ps, k);
	}
	ps->n--;
	em.used[ps->n] = 0;
	free(d);
	return 0;
}

int probe_remove(struct probe_set *ps, const char *event, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < ps->n; i++)
		if (!strcmp(ps->defs[i]->event, event))
			return remove_at(ps, i, err, errlen);
	snprintf(err, errlen, "no probe named %s", event);
	return -ENOENT;
}

int probe_create_all(struct probe_set *ps, const char *const *specs, unsigned int n,
		     char *err, size_t errlen)
{
	unsigned int before = ps->n;
	char one[2048], rb[256];
	int ret;

	for (unsigned int i = 0; i < n; i++) {
		ret = probe_create(ps, specs[i], NULL, one, sizeof(one));
		if (!ret)
			continue;
		snprintf(err, errlen, "--probe '%s': %s", specs[i], one);
		while (ps->n > before)
			remove_at(ps, ps->n - 1, rb, sizeof(rb));
		return ret;
	}
	return 0;
}

int probe_enable(struct probe_set *ps, const char *instance_dir, const char *event, bool on)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", instance_dir, ps->group, event);
	return file_write_str(path, on ? "1" : "0", 0);
}

void probe_set_free(struct probe_set *ps)
{
	char err[256];

	if (!ps)
		return;
	if (ps->owner == getpid()) {
		while (ps->n) {
			if (remove_at(ps, ps->n - 1, err, sizeof(err))) {
				fprintf(stderr, "ktop: %s; the next ktop start removes it\n", err);
				em.used[ps->n - 1] = 0;
				free(ps->defs[--ps->n]);
			}
		}
	}
	for (unsigned int i = 0; i < ps->n; i++)
		free(ps->defs[i]);
	em.owner = 0;
	probe_btf_free(ps->btf);
	free(ps->retired);
	free(ps);
}

void probe_emergency(void)
{
	if (em.owner != getpid())
		return;
	/* the session's emergency undo disabled them (rmdir, or set_event restored) */
	for (int i = PROBE_SET_MAX - 1; i >= 0; i--) {
		if (!em.used[i])
			continue;
		em.used[i] = 0;
		append_line(em.path[i], em.line[i]);
	}
}

int probe_proto(struct probe_set *ps, const char *func, char *buf, size_t len)
{
	struct probe_func f;

	if (!set_btf(ps) || probe_btf_func(ps->btf, func, &f))
		return -ENOENT;
	probe_btf_proto(ps->btf, func, &f, buf, len);
	return 0;
}

/* ---- a killed ktop's probes ---------------------------------------------------- */

static int reap_file(const char *tracefs, const char *file, bool (*alive)(long pid))
{
	char path[512], *text, *p;
	int n = 0, ret;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	text = file_read_text(path);
	if (!text)
		return 0;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char group[PROBE_NAME_MAX], event[PROBE_NAME_MAX], line[EM_LINE], en[1024];
		char *end;
		long pid;

		/* "p:ktop_123/vfs_read vfs_read ...", "r10:ktop_123/x ..." */
		if (sscanf(p, "%*[^:]:%63[^/]/%63s", group, event) != 2 ||
		    strncmp(group, "ktop_", 5))
			continue;
		pid = strtol(group + 5, &end, 10);
		if (*end || pid <= 0 || alive(pid))
			continue;
		snprintf(line, sizeof(line), "-:%s/%s", group, event);
		ret = append_line(path, line);
		if (ret == -EBUSY) {
			/* enabled at the top level (a top-level session): it is that ktop's */
			snprintf(en, sizeof(en), "%s/events/%s/%s/enable", tracefs, group, event);
			file_write_str(en, "0", 0);
			ret = append_line(path, line);
		}
		n += !ret;
	}
	free(text);
	return n;
}

int probe_reap_stale(const char *tracefs, bool (*alive)(long pid))
{
	char path[512];

	if (!tracefs)
		tracefs = tracefs_tracing_dir();
	if (!tracefs)
		return 0;

	snprintf(path, sizeof(path), "%s/dynamic_events", tracefs);
	if (path_exists(path))
		return reap_file(tracefs, "dynamic_events", alive);
	return reap_file(tracefs, "kprobe_events", alive) +
	       reap_file(tracefs, "uprobe_events", alive);
}

/* ---- completion ------------------------------------------------------------------ */

struct cands {
	char	**out;
	size_t	max, n;
	int	total;
};

static void cand_add(struct cands *c, const char *word, size_t len)
{
	char *dup;

	c->total++;
	if (c->n == c->max)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (strlen(c->out[i]) == len && !strncmp(c->out[i], word, len))
			return;
	dup = strndup(word, len);
	if (dup)
		c->out[c->n++] = dup;
}

/* Words of a ", " separated list (probe_btf_members' output). */
static void cand_list(struct cands *c, const char *list)
{
	while (*list) {
		size_t n = strcspn(list, ",");

		cand_add(c, list, n);
		list += n;
		list += strspn(list, ", ");
	}
}

static void complete_place(struct probe_set *ps, const char *w, struct cands *c, size_t *start)
{
	const char *colon = strrchr(w, ':');
	const char *fn[64];
	int n;

	if (!colon) {
		n = set_btf(ps) ? probe_btf_funcs(ps->btf, w, fn, 64) : 0;
		for (int i = 0; i < n && i < 64; i++)
			cand_add(c, fn[i], strlen(fn[i]));
		return;
	}
	*start += colon + 1 - w;
	{
		char a[PATH_MAX], path[PATH_MAX], how[160], *syms[64];
		struct dirent *de;
		DIR *d;

		snprintf(a, sizeof(a), "%.*s", (int)(colon - w), w);
		str_fmt(path, sizeof(path), "%s/events/%s", ps->tracefs, a);
		d = strchr(a, '/') ? NULL : opendir(path);
		if (d) {
			while ((de = readdir(d)))
				if (de->d_name[0] != '.' && !strncmp(de->d_name, colon + 1,
								     strlen(colon + 1)) &&
				    event_exists(ps->tracefs, a, de->d_name))
					cand_add(c, de->d_name, strlen(de->d_name));
			closedir(d);
			return;
		}
		if (probe_elf_find(a, path, sizeof(path), how, sizeof(how)))
			return;
		n = probe_elf_symbols(path, colon + 1, false, syms, 64);
		for (int i = 0; i < n; i++)
			cand_add(c, syms[i], strlen(syms[i]));
		probe_elf_symbols_free(syms, n > 0 ? n : 0);
	}
}

/*
 * What the place of a spec being typed is, for completion: like resolve(),
 * but whether this kernel could probe it does not matter yet.
 */
static int complete_target(struct probe_set *ps, const struct probe_spec *sp, struct resolved *r)
{
	const char *dot = strchr(sp->target, '.');
	char sys[256];

	memset(&r->tg, 0, sizeof(r->tg));
	snprintf(sys, sizeof(sys), "%.*s", dot ? (int)(dot - sp->target) : 0, sp->target);
	if (sp->place == PROBE_PLACE_COLON && event_exists(ps->tracefs, sp->target, sp->symbol))
		return event_fields(ps->tracefs, sp->target, sp->symbol, r->efields, 64,
				    &r->tg.nefields) ?: (r->tg.kind = PROBE_EPROBE, 0);
	if (sp->place == PROBE_PLACE_FUNC && dot && event_exists(ps->tracefs, sys, dot + 1))
		return event_fields(ps->tracefs, sys, dot + 1, r->efields, 64,
				    &r->tg.nefields) ?: (r->tg.kind = PROBE_EPROBE, 0);
	r->tg.efields = r->efields;
	if (sp->place != PROBE_PLACE_FUNC) {
		r->tg.kind = sp->ret ? PROBE_URETPROBE : PROBE_UPROBE;
		return 0;
	}
	r->tg.kind = sp->ret ? PROBE_KRETPROBE : PROBE_KPROBE;
	str_fmt(r->tg.name, sizeof(r->tg.name), "%s", sp->target);
	if (set_btf(ps) && !probe_btf_func(ps->btf, sp->target, &r->func))
		r->tg.func = &r->func;
	return 0;
}

static void complete_arg(struct probe_set *ps, const char *head, const char *w,
			 struct cands *c, size_t *start)
{
	static const char *const types[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16", "x32",
		"x64", "hex", "char", "string", "ustring", "symbol", "symstr", NULL
	};
	static const char *const specials[] = { "$retval", "$comm", "$args", NULL };
	const char *eq = strchr(w, '='), *colon, *sep = NULL, *p;
	char buf[PROBE_TEXT_MAX + 64], list[2048];
	struct probe_spec *sp = NULL;
	struct resolved *r = NULL;
	struct probe_err pe;
	int type, ptr_to = 0, lvl = 0;

	if (eq && eq < w + strcspn(w, "-.>$+%@(:")) {
		*start += eq + 1 - w;
		w = eq + 1;
	}
	colon = NULL;
	for (p = w; *p; p++) {
		lvl += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		if (*p == ':' && !lvl)
			colon = p;
	}
	if (colon) {
		*start += colon + 1 - w;
		for (int i = 0; types[i]; i++)
			if (!strncmp(types[i], colon + 1, strlen(colon + 1)))
				cand_add(c, types[i], strlen(types[i]));
		return;
	}
	for (p = w; *p; p++)
		if (*p == '.' || (*p == '>' && p > w && p[-1] == '-'))
			sep = p;
	r = calloc(1, sizeof(*r));
	snprintf(buf, sizeof(buf), "%s %.*s", head, sep ? (int)(sep - w - (*sep == '>')) :
		 0, w);
	if (!r || probe_spec_parse(buf, &sp, &pe) || complete_target(ps, sp, r))
		goto out;
	if (!sep) {
		for (unsigned int i = 0; r->tg.func && i < r->tg.func->nparams; i++)
			if (!strncmp(r->tg.func->names[i], w, strlen(w)))
				cand_add(c, r->tg.func->names[i], strlen(r->tg.func->names[i]));
		for (unsigned int i = 0; i < r->tg.nefields; i++)
			if (!strncmp(r->efields[i].name, w, strlen(w)))
				cand_add(c, r->efields[i].name, strlen(r->efields[i].name));
		for (int i = 0; specials[i]; i++)
			if (!strncmp(specials[i], w, strlen(w)))
				cand_add(c, specials[i], strlen(specials[i]));
		goto out;
	}
	*start += sep + 1 - w;
	if (!sp->nargs)
		goto out;
	type = probe_expr_type(set_btf(ps), &r->tg, &sp->args[0].expr, &ptr_to);
	if (type < 0 && ptr_to <= 0)
		goto out;
	if (*sep == '>')
		type = ptr_to > 0 ? ptr_to : probe_btf_pointee(ps->btf, type);
	if (type > 0 && probe_btf_members(ps->btf, type, sep + 1, list, sizeof(list)))
		cand_list(c, list);
out:
	probe_spec_free(sp);
	free(r);
}

int probe_complete(struct probe_set *ps, const char *text, size_t cursor, char **out,
		   size_t max, size_t *start)
{
	struct cands c = { .out = out, .max = max };
	char buf[PROBE_TEXT_MAX], head[PROBE_TEXT_MAX];
	size_t ws, hs, he;

	if (cursor > strlen(text) || cursor >= sizeof(buf))
		cursor = strlen(text) < sizeof(buf) ? strlen(text) : sizeof(buf) - 1;
	memcpy(buf, text, cursor);
	buf[cursor] = '\0';
	for (ws = cursor; ws && !isspace((unsigned char)buf[ws - 1]); ws--)
		;
	hs = strspn(buf, " \t");
	*start = ws;
	if (ws <= hs) {
		const char *w = buf + ws, *eq = strchr(w, '=');

		if (eq && !strpbrk(w, ":/") ? 1 : eq && eq < w + strcspn(w, ":/")) {
			*start += eq + 1 - w;
			w = eq + 1;
		}
		complete_place(ps, w, &c, start);
		return (int)c.n;
	}
	he = hs + strcspn(buf + hs, " \t");
	snprintf(head, sizeof(head), "%.*s", (int)(he - hs), buf + hs);
	complete_arg(ps, head, buf + ws, &c, start);
	return (int)c.n;
}
