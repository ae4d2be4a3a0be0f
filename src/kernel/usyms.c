// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User-space symbols from /proc/PID/maps and ELF symbol tables (usyms.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/array.h"
#include "usyms.h"

#define USYMS_MAX_PROCS	4096	/* processes kept; past it the oldest go */
#define USYMS_MAX_FILES	1024

struct umap {
	uint64_t	start, end, off;
	struct ufile	*file;		/* NULL: a special mapping ([vdso]) */
	char		*special;
};

struct uproc {
	uint32_t	tgid;
	bool		reread;		/* maps read again once for a miss */
	struct umap	*maps;
	size_t		nmaps;
};

struct usym {
	uint64_t	addr, size;
	uint32_t	name;		/* offset in names */
};

struct useg {
	uint64_t	off, filesz, vaddr;
};

struct ufile {
	char		*path;
	const char	*base;
	bool		loaded;
	struct usym	*syms;
	size_t		nsyms;
	char		*names;
	struct useg	*segs;
	size_t		nsegs;
};

struct usyms {
	pthread_mutex_t	lock;
	char		root[256];
	struct uproc	*procs;
	size_t		nprocs, next_evict;
	struct ufile	**files;
	size_t		nfiles;
};

struct usyms *usyms_new(const char *root)
{
	struct usyms *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	pthread_mutex_init(&u->lock, NULL);
	snprintf(u->root, sizeof(u->root), "%s", root ? root : "");
	u->procs = calloc(USYMS_MAX_PROCS, sizeof(*u->procs));
	u->files = calloc(USYMS_MAX_FILES, sizeof(*u->files));
	if (!u->procs || !u->files) {
		usyms_free(u);
		return NULL;
	}
	elf_version(EV_CURRENT);
	return u;
}

static void proc_clear(struct uproc *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].special);
	free(p->maps);
	memset(p, 0, sizeof(*p));
}

static void file_free(struct ufile *f)
{
	if (!f)
		return;
	free(f->path);
	free(f->syms);
	free(f->names);
	free(f->segs);
	free(f);
}

void usyms_free(struct usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; u->procs && i < u->nprocs; i++)
		proc_clear(&u->procs[i]);
	for (size_t i = 0; u->files && i < u->nfiles; i++)
		file_free(u->files[i]);
	free(u->procs);
	free(u->files);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

/* Called locked. Return: the file of @path, added (not loaded) if new, or NULL. */
static struct ufile *file_get(struct usyms *u, const char *path)
{
	struct ufile *f;

	for (size_t i = 0; i < u->nfiles; i++)
		if (!strcmp(u->files[i]->path, path))
			return u->files[i];
	if (u->nfiles == USYMS_MAX_FILES)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	u->files[u->nfiles++] = f;
	return f;
}

static struct uproc *proc_find(struct usyms *u, uint32_t tgid)
{
	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i].tgid == tgid)
			return &u->procs[i];
	return NULL;
}

static int umap_cmp(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Called locked: (re)read the executable mappings of @p->tgid. */
static int proc_read(struct usyms *u, struct uproc *p)
{
	char path[320], line[4096 + 128];
	size_t cap = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/proc/%" PRIu32 "/maps", u->root, p->tgid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].special);
	p->nmaps = 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, off;
		char perms[8], file[4096];
		struct umap *m;
		int n;

		file[0] = '\0';
		n = sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   file);
		if (n < 4 || !strchr(perms, 'x'))
			continue;
		if (array_grow((void **)&p->maps, &cap, p->nmaps + 1, sizeof(*p->maps)))
			break;
		m = &p->maps[p->nmaps];
		memset(m, 0, sizeof(*m));
		m->start = start;
		m->end = end;
		m->off = off;
		if (file[0] == '/' && !strstr(file, " (deleted)"))
			m->file = file_get(u, file);
		else if (file[0] == '[')
			m->special = strdup(file);
		p->nmaps++;
	}
	fclose(fp);
	if (p->nmaps)
		qsort(p->maps, p->nmaps, sizeof(*p->maps), umap_cmp);
	return 0;
}

int usyms_capture(struct usyms *u, uint32_t tgid)
{
	struct uproc *p;
	int ret = 0;

	if (!u || !tgid)
		return -EINVAL;
	pthread_mutex_lock(&u->lock);
	if (proc_find(u, tgid))
		goto out;
	if (u->nprocs < USYMS_MAX_PROCS) {
		p = &u->procs[u->nprocs++];
	} else {
		p = &u->procs[u->next_evict];
		u->next_evict = (u->next_evict + 1) % USYMS_MAX_PROCS;
		proc_clear(p);
	}
	p->tgid = tgid;
	ret = proc_read(u, p);
	if (ret)
		p->tgid = 0;	/* gone: a later capture may try again */
out:
	pthread_mutex_unlock(&u->lock);
	return ret;
}

static int usym_cmp(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Functions of one symbol table section into @f. */
static int file_add_syms(struct ufile *f, Elf *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, nlen = 0;

	if (!d || !n)
		return -ENOENT;
	f->syms = calloc(n, sizeof(*f->syms));
	if (!f->syms)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		GElf_Sym s;
		char *p;
		size_t len;

		if (!gelf_getsym(d, (int)i, &s) || !s.st_value ||
		    (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !name[0])
			continue;
		len = strlen(name) + 1;
		p = realloc(f->names, nlen + len);
		if (!p)
			return -ENOMEM;
		f->names = p;
		memcpy(f->names + nlen, name, len);
		f->syms[f->nsyms++] = (struct usym){ s.st_value, s.st_size, (uint32_t)nlen };
		nlen += len;
	}
	qsort(f->syms, f->nsyms, sizeof(*f->syms), usym_cmp);
	return 0;
}

/* Called locked: read @f's segments and function symbols (once). */
static void file_load(struct usyms *u, struct ufile *f, uint32_t tgid)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *sym = NULL;
	GElf_Shdr sh, dsh, ssh;
	size_t nph = 0;
	char path[4400];
	Elf *e;
	int fd;

	f->loaded = true;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		/* another mount namespace: through the process's root */
		snprintf(path, sizeof(path), "%s/proc/%" PRIu32 "/root%s", u->root, tgid, f->path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph))
		goto out;
	f->segs = calloc(nph ? nph : 1, sizeof(*f->segs));
	for (size_t i = 0; f->segs && i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->segs[f->nsegs++] = (struct useg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			sym = scn;
			ssh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dsh = sh;
		}
	}
	/* .symtab has the local functions too; a stripped file keeps only .dynsym */
	if (!sym || file_add_syms(f, e, sym, &ssh) || !f->nsyms) {
		free(f->syms);
		free(f->names);
		f->syms = NULL;
		f->names = NULL;
		f->nsyms = 0;
		if (dyn)
			file_add_syms(f, e, dyn, &dsh);
	}
out:
	if (e)
		elf_end(e);
	close(fd);
}

/* The name of the function at file offset @off of @f, or NULL. */
static const char *file_sym(const struct ufile *f, uint64_t off)
{
	uint64_t va = 0;
	size_t lo = 0, hi = f->nsyms;
	bool in = false;

	for (size_t i = 0; i < f->nsegs; i++) {
		if (off >= f->segs[i].off && off < f->segs[i].off + f->segs[i].filesz) {
			va = off - f->segs[i].off + f->segs[i].vaddr;
			in = true;
			break;
		}
	}
	if (!in || !f->nsyms || va < f->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= va)
			lo = mid;
		else
			hi = mid;
	}
	/* inside its size; a symbol of size 0 (assembly) up to the next one */
	if (f->syms[lo].size && va >= f->syms[lo].addr + f->syms[lo].size)
		return NULL;
	return f->names + f->syms[lo].name;
}

/* Called locked: the mapping of @p holding @addr, or NULL. */
static const struct umap *proc_map(const struct uproc *p, uint64_t addr)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

int usyms_lookup(struct usyms *u, uint32_t tgid, uint64_t addr, char *name, size_t namelen,
		 char *module, size_t modlen)
{
	const struct umap *m;
	struct uproc *p;
	const char *s;
	int ret = -ENOENT;

	name[0] = module[0] = '\0';
	if (!u || !tgid)
		return -ENOENT;
	pthread_mutex_lock(&u->lock);
	p = proc_find(u, tgid);
	if (!p) {
		pthread_mutex_unlock(&u->lock);
		if (usyms_capture(u, tgid))
			return -ENOENT;
		pthread_mutex_lock(&u->lock);
		p = proc_find(u, tgid);
		if (!p)
			goto out;
	}
	m = proc_map(p, addr);
	if (!m && !p->reread) {
		p->reread = true;	/* a library mapped since the capture */
		if (!proc_read(u, p))
			m = proc_map(p, addr);
	}
	if (!m)
		goto out;
	ret = 0;
	if (m->special) {
		snprintf(module, modlen, "%s", m->special);
		goto out;
	}
	if (!m->file)
		goto out;
	snprintf(module, modlen, "%s", m->file->base);
	if (!m->file->loaded)
		file_load(u, m->file, tgid);
	s = file_sym(m->file, addr - m->start + m->off);
	if (s)
		snprintf(name, namelen, "%s", s);
out:
	pthread_mutex_unlock(&u->lock);
	return ret;
}
