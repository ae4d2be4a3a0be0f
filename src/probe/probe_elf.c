// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ELF symbols for uprobes (libelf). The kernel's uprobe wants a file
 * offset: a symbol's st_value is a virtual address, mapped to the file by
 * the PT_LOAD program header that holds it (offset = vaddr - p_vaddr +
 * p_offset), which is right for executables and shared libraries alike.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "probe_btf.h"
#include "probe_elf.h"

static bool is_elf(const char *path)
{
	unsigned char m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, m, 4) == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
	close(fd);
	return ok;
}

/* Does file name @base name library @lib ("libc" -> libc.so.6, libc-2.36.so)? */
static bool lib_matches(const char *base, const char *lib)
{
	size_t l = strlen(lib);

	if (!strcmp(base, lib))
		return true;
	if (strncmp(base, lib, l))
		return false;
	if (strstr(lib, ".so"))
		return base[l] == '.';	/* libc.so -> libc.so.6 */
	return !strncmp(base + l, ".so", 3) || (base[l] == '-' && strstr(base + l, ".so"));
}

/* The libraries this process has mapped: the dynamic linker's own choice. */
static int find_in_maps(const char *lib, char *path, size_t len)
{
	char line[PATH_MAX + 128];
	FILE *fp = fopen("/proc/self/maps", "r");
	int ret = -ENOENT;

	if (!fp)
		return -ENOENT;
	while (ret && fgets(line, sizeof(line), fp)) {
		char *p = strchr(line, '/'), *base;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		base = strrchr(p, '/') + 1;
		if (lib_matches(base, lib) && is_elf(p)) {
			snprintf(path, len, "%s", p);
			ret = 0;
		}
	}
	fclose(fp);
	return ret;
}

/* Newest match of @lib in @dir (libfoo.so.3 over libfoo.so.1.1). */
static int find_in_dir(const char *dir, const char *lib, char *path, size_t len)
{
	char best[NAME_MAX + 1] = "", full[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		if (!lib_matches(de->d_name, lib))
			continue;
		snprintf(full, sizeof(full), "%s/%s", dir, de->d_name);
		if (!is_elf(full))
			continue;	/* libc.so is a linker script */
		if (!best[0] || strverscmp(de->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (!best[0])
		return -ENOENT;
	snprintf(path, len, "%s/%s", dir, best);
	return 0;
}

/* The directories of an ld.so.conf file, with its "include" globs. */
static int find_in_conf(const char *conf, const char *lib, char *path, size_t len,
			char *how, size_t hlen, int depth)
{
	char line[PATH_MAX];
	FILE *fp;
	int ret = -ENOENT;

	if (depth > 4 || !(fp = fopen(conf, "r")))
		return -ENOENT;
	while (ret && fgets(line, sizeof(line), fp)) {
		char *p = line + strspn(line, " \t");

		p[strcspn(p, "#\n")] = '\0';
		while (*p && p[strlen(p) - 1] == ' ')
			p[strlen(p) - 1] = '\0';
		if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
			glob_t g;

			p += 8 + strspn(p + 8, " \t");
			if (glob(p, 0, NULL, &g))
				continue;
			for (size_t i = 0; ret && i < g.gl_pathc; i++)
				ret = find_in_conf(g.gl_pathv[i], lib, path, len, how, hlen,
						   depth + 1);
			globfree(&g);
		} else if (*p == '/' && !(ret = find_in_dir(p, lib, path, len))) {
			snprintf(how, hlen, "ld.so.conf directory %s", p);
		}
	}
	fclose(fp);
	return ret;
}

int probe_elf_find(const char *name, char *path, size_t len, char *how, size_t hlen)
{
	static const char *const dflt[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", NULL
	};
	const char *env = getenv("PATH");
	char dir[PATH_MAX], full[2 * PATH_MAX];

	if (strchr(name, '/')) {
		if (!realpath(name, path) && (strlen(name) >= len || !strcpy(path, name)))
			return -ENAMETOOLONG;
		snprintf(how, hlen, "path");
		return access(path, R_OK) ? -errno : 0;
	}
	if (!find_in_maps(name, path, len)) {
		snprintf(how, hlen, "loaded by ktop itself (/proc/self/maps)");
		return 0;
	}
	if (!find_in_conf("/etc/ld.so.conf", name, path, len, how, hlen, 0))
		return 0;
	for (int i = 0; dflt[i]; i++) {
		if (!find_in_dir(dflt[i], name, path, len)) {
			snprintf(how, hlen, "default library directory %s", dflt[i]);
			return 0;
		}
	}
	/* a program in $PATH */
	for (const char *p = env ? env : "/usr/bin:/bin"; *p; ) {
		size_t n = strcspn(p, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
		snprintf(full, sizeof(full), "%s/%s", dir[0] ? dir : ".", name);
		if (!access(full, X_OK) && is_elf(full) && realpath(full, path)) {
			snprintf(how, hlen, "$PATH (%s)", dir);
			return 0;
		}
		p += n + (p[n] == ':');
	}
	return -ENOENT;
}

/*
 * Call @fn for every defined function symbol of @path (.symtab first, then
 * .dynsym), until it returns non-zero. Return: fn's value, 0, or -errno.
 */
static int elf_each(const char *path, int (*fn)(void *ctx, const char *name, GElf_Sym *sym,
						bool dynsym, Elf *elf), void *ctx)
{
	Elf_Scn *scn = NULL;
	int fd, ret = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out_close;
	}
	for (int pass = 0; pass < 2 && !ret; pass++) {
		while (!ret && (scn = elf_nextscn(elf, scn))) {
			Elf_Data *data;
			GElf_Shdr sh;
			size_t n;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			data = elf_getdata(scn, NULL);
			n = sh.sh_size / sh.sh_entsize;
			for (size_t i = 0; data && i < n && !ret; i++) {
				GElf_Sym s;
				const char *nm;
				int type;

				if (!gelf_getsym(data, (int)i, &s))
					continue;
				type = GELF_ST_TYPE(s.st_info);
				if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
				    s.st_shndx == SHN_UNDEF || !s.st_value)
					continue;
				nm = elf_strptr(elf, sh.sh_link, s.st_name);
				if (nm && *nm)
					ret = fn(ctx, nm, &s, pass, elf);
			}
		}
		scn = NULL;
	}
out_close:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

struct sym_find {
	const char		*name;
	struct probe_elf_sym	*out;
	int			err;
};

static int sym_find_one(void *ctx, const char *name, GElf_Sym *s, bool dynsym, Elf *elf)
{
	struct sym_find *f = ctx;
	size_t nph;

	if (strcmp(name, f->name))
		return 0;
	if (elf_getphdrnum(elf, &nph))
		return (f->err = -ENOEXEC);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (s->st_value < ph.p_vaddr || s->st_value >= ph.p_vaddr + ph.p_memsz)
			continue;
		f->out->vaddr = s->st_value;
		f->out->size = s->st_size;
		f->out->offset = s->st_value - ph.p_vaddr + ph.p_offset;
		f->out->ifunc = GELF_ST_TYPE(s->st_info) == STT_GNU_IFUNC;
		f->out->dynsym = dynsym;
		return 1;
	}
	return (f->err = -ENOEXEC);
}

int probe_elf_symbol(const char *path, const char *sym, struct probe_elf_sym *out)
{
	struct sym_find f = { .name = sym, .out = out, .err = -ENOENT };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = elf_each(path, sym_find_one, &f);
	if (ret < 0)
		return ret;
	return ret == 1 ? 0 : f.err;
}

struct sym_list {
	const char	*prefix;
	bool		near;
	int		cap;
	char		**out;
	size_t		max, n;
};

static int sym_list_one(void *ctx, const char *name, GElf_Sym *s, bool dynsym, Elf *elf)
{
	struct sym_list *l = ctx;
	char *dup;

	if (l->near ? probe_edit_distance(name, l->prefix, l->cap) > l->cap :
	    strncmp(name, l->prefix, strlen(l->prefix)))
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->out[i], name))
			return 0;
	if (l->n == l->max)
		return 0;
	dup = strdup(name);
	if (!dup)
		return -ENOMEM;
	l->out[l->n++] = dup;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int probe_elf_symbols(const char *path, const char *prefix, bool near, char **out, size_t max)
{
	struct sym_list l = { .prefix = prefix, .near = near, .out = out, .max = max };
	int ret;

	l.cap = strlen(prefix) < 6 ? 1 : strlen(prefix) < 12 ? 2 : 3;
	ret = elf_each(path, sym_list_one, &l);
	if (ret < 0) {
		probe_elf_symbols_free(out, (int)l.n);
		return ret;
	}
	qsort(out, l.n, sizeof(*out), str_cmp);
	return (int)l.n;
}

void probe_elf_symbols_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
}
