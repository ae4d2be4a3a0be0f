// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktop --remote without ssh: which options go to the far side, the
 * refusals, and the far side's command line run through a real /bin/sh (as
 * sshd's login shell runs it), with `id`, `sudo` and ktop replaced by
 * scripts that print what they got: every word must arrive as it was, root
 * runs ktop itself, anyone else through sudo -S with ktop's prompt.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "app/opts.h"
#include "opts_common.h"
#include "source/remote.h"
#include "test.h"

TEST(tracing_options_go_to_the_far_side)
{
	struct app_opts o;
	const struct remote_opts *ro = &o.remote;

	CHECK(PARSE(&o, "--remote", "root@box", "-e", "sched", "-p", "function_graph", "-g",
		    "vfs_read", "-F", "comm:make", "-m", "64M", "--stream-rate", "1M",
		    "--probe", "vfs_read count", "--ssh", "ssh -p 2222", "--remote-ktop",
		    "/opt/ktop", "--offcpu", "--theme", "mono", "-C", "0-1") == OPTS_RUN);
	CHECK_STR(ro->dest, "root@box");
	CHECK_STR(ro->ssh, "ssh -p 2222");
	CHECK_STR(ro->ktop, "/opt/ktop");
	CHECK_EQ_U64(ro->nfwd, 7);
	CHECK_STR(ro->fwd_name[0], "event");
	CHECK_STR(ro->fwd_arg[0], "sched");
	CHECK_STR(ro->fwd_name[1], "tracer");
	CHECK_STR(ro->fwd_name[2], "graph-function");
	CHECK_STR(ro->fwd_name[3], "stream-rate");
	CHECK_STR(ro->fwd_arg[3], "1M");
	CHECK_STR(ro->fwd_name[4], "probe");
	CHECK_STR(ro->fwd_arg[4], "vfs_read count");
	CHECK_STR(ro->fwd_name[5], "offcpu");
	CHECK(ro->fwd_arg[5] == NULL);
	CHECK_STR(ro->fwd_name[6], "cpu");
	/* the view's own stay here */
	CHECK_EQ_U64(o.nviews, 1);
	CHECK_EQ_U64(o.memory, 64u << 20);
}

TEST(remote_refusals)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--remote", "box", "-i", "x.ktop") == -EINVAL);
	CHECK(strstr(err, "--remote") && strstr(err, "-i"));
	CHECK(PARSE(&o, "--remote", "box", "--stream") == -EINVAL);
	CHECK(PARSE(&o, "--remote", "box", "--demo") == -EINVAL);
	CHECK(PARSE(&o, "--ssh", "ssh -p 2") == -EINVAL);
	CHECK(strstr(err, "--ssh applies to --remote only"));
	CHECK(PARSE(&o, "--remote-ktop", "/x") == -EINVAL);
	/* not an ssh option in disguise, not two words */
	CHECK(PARSE(&o, "--remote", "-oProxyCommand=sh") == -EINVAL);
	CHECK(strstr(err, "[USER@]HOST"));
	CHECK(PARSE(&o, "--remote", "a b") == -EINVAL);
	CHECK(PARSE(&o, "--remote", "") == -EINVAL);
}

TEST(ssh_words)
{
	const char *w[REMOTE_MAX_SSH_WORDS];
	char buf[256];

	CHECK(remote_split_words("ssh  -p 2222\t-i /k", buf, sizeof(buf), w,
				 REMOTE_MAX_SSH_WORDS) == 5);
	CHECK_STR(w[0], "ssh");
	CHECK_STR(w[2], "2222");
	CHECK_STR(w[4], "/k");
	CHECK(remote_split_words("   ", buf, sizeof(buf), w, REMOTE_MAX_SSH_WORDS) == -EINVAL);
	CHECK(remote_split_words("a b c", buf, sizeof(buf), w, 2) == -EINVAL);
}

static char dir[64];

static void put_script(const char *name, const char *body)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		return;
	fprintf(fp, "#!/bin/sh\n%s", body);
	fclose(fp);
	chmod(path, 0755);
}

/* Run @cmd as the far side's shell would, `id -u` printing @uid. Return: its output. */
static char *run_far(const char *cmd, const char *uid)
{
	static char out[8192];
	char body[64], *old;
	size_t n;
	FILE *fp;

	snprintf(body, sizeof(body), "echo %s\n", uid);
	put_script("id", body);
	old = strdup(getenv("PATH"));
	snprintf(out, sizeof(out), "%s:%s", dir, old);
	setenv("PATH", out, 1);
	fp = popen(cmd, "r");
	n = fp ? fread(out, 1, sizeof(out) - 1, fp) : 0;
	if (fp)
		pclose(fp);
	out[n] = 0;
	setenv("PATH", old, 1);
	free(old);
	return out;
}

static const char nasty[] = "vfs_read name=+0($arg1):string it's \"$HOME\" `x` \\ ; a\tb";

TEST(command_words_arrive_whole)
{
	struct remote_opts ro = { .dest = "box" };
	char cmd[8192], path[128], want[1024];

	snprintf(dir, sizeof(dir), "/tmp/ktop-test-remote.XXXXXX");
	CHECK(mkdtemp(dir));
	/* a ktop and a sudo that print their words, one per line */
	put_script("fakektop", "for a; do printf '<%s>\\n' \"$a\"; done\n");
	put_script("sudo", "printf 'sudo\\n'; for a; do printf '[%s]\\n' \"$a\"; done\n");
	snprintf(path, sizeof(path), "%s/fakektop", dir);
	ro.ktop = path;
	ro.fwd_name[ro.nfwd] = "probe";
	ro.fwd_arg[ro.nfwd++] = nasty;
	ro.fwd_name[ro.nfwd] = "offcpu";
	ro.fwd_arg[ro.nfwd++] = NULL;
	CHECK(remote_command(&ro, cmd, sizeof(cmd)) == 0);

	/* root: ktop itself, each word as it was */
	snprintf(want, sizeof(want), "<--stream>\n<--probe=%s>\n<--offcpu>\n", nasty);
	CHECK_STR(run_far(cmd, "0"), want);
	/* anyone else: sudo -S with ktop's prompt, then ktop and its words */
	snprintf(want, sizeof(want), "sudo\n[-S]\n[-p]\n[[ktop: sudo password for %%p@%%h] ]\n"
		 "[--]\n[%s]\n[--stream]\n[--probe=%s]\n[--offcpu]\n", path, nasty);
	CHECK_STR(run_far(cmd, "1000"), want);

	CHECK(remote_command(&ro, cmd, 64) == -ENOSPC);
	CHECK(test_rm_rf(dir) == 0);
}

TEST_MAIN()
