// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ioprio: show or set the I/O priority level of processes, or run a command
 * at a level.  Levels run from 0 (idle) through 10 (the default) to 20 (real
 * time); see ioprio(1).  Modelled on util-linux's ionice.
 *
 * Everything on the command line is checked before anything is set, and a
 * list of pids is set all or nothing: on a failure the pids already set get
 * their old value back.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioprio-level.h"

#define VERSION_STRING	"ioprio from cfq-prio 0.1"

/* Exit status, as ioprio(1) documents it (1 is EXIT_FAILURE). */
enum {
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_CANNOT_RUN = 126,	/* COMMAND found but could not be run */
	EXIT_NOT_FOUND = 127,	/* COMMAND not found */
};

static const char *const who_names[] = {
	[IOPRIO_WHO_PROCESS] = "pid",
	[IOPRIO_WHO_PGRP]    = "process group",
	[IOPRIO_WHO_USER]    = "user",
};

/* What -p, -g or -u named: the ids, and the arguments as given. */
struct targets {
	int which;		/* IOPRIO_WHO_*, 0 for none */
	int n;
	int *ids;
	char **args;
};

static void __attribute__((noreturn)) usage(void)
{
	fputs("Usage:\n"
	      " ioprio [-p <pid>...|-g <pgrp>|-u <user>]\n"
	      " ioprio -n <level> [-t] -p <pid>...|-g <pgrp>|-u <user>\n"
	      " ioprio -n <level> [-t] [--] <command> [<arg>...]\n"
	      "\n"
	      "Show or set the I/O priority level of processes, or run a command at a level.\n"
	      "\n"
	      "Options:\n"
	      " -n, --level <level>  level to set: 0..20, idle (0), normal (10) or rt (20)\n"
	      " -p, --pid <pid>...   show or set these processes\n"
	      " -g, --pgrp <pgrp>    show or set the processes in this process group\n"
	      " -u, --user <user>    show or set the processes of this user (name or uid)\n"
	      " -t, --ignore         ignore failure to set the level\n"
	      "\n"
	      " -h, --help           display this help\n"
	      " -V, --version        display version\n"
	      "\n"
	      "Levels: 0 is served only when the disk is otherwise idle; 1..19 share it in\n"
	      "proportion to level + 1; 20 is real time and needs CAP_SYS_ADMIN or\n"
	      "CAP_SYS_NICE.  A process that never set a level has 10, or one derived from\n"
	      "its nice value if /proc/sys/kernel/ioprio_from_nice is 1.\n"
	      "\n"
	      "Exit status: 0 success, 1 failure, 2 bad usage, 126 <command> cannot be run,\n"
	      "127 <command> not found; otherwise the exit status of <command>.\n"
	      "\n"
	      "For more details see ioprio(1).\n", stdout);
	exit(EXIT_SUCCESS);
}

static void close_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		warn("write error");
		_exit(EXIT_FAILURE);
	}
}

/* getopt_long's complaint, on one line. */
static void __attribute__((noreturn)) bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];
	int len = strcspn(arg, "=");

	if (c == '?' && !optopt)
		errx(EXIT_USAGE, "unknown option '%s' (see ioprio --help)", arg);
	if (c == '?' && strchr("htV", optopt))
		errx(EXIT_USAGE, "option '%.*s' takes no argument", len, arg);
	if (c == '?')
		errx(EXIT_USAGE, "unknown option '-%c' (see ioprio --help)", optopt);
	if (!strncmp(arg, "--", 2))
		errx(EXIT_USAGE, "option '%.*s' needs an argument", len, arg);
	errx(EXIT_USAGE, "option '-%c' needs an argument", optopt);
}

static int parse_id(int which, const char *s)
{
	unsigned long v;
	struct passwd *pw;
	int err;

	if (which != IOPRIO_WHO_USER) {
		err = ioprio_parse_uint(s, INT_MAX, &v);
		if (err)
			errx(EXIT_USAGE, "invalid %s '%s': %s", who_names[which],
			     s, ioprio_parse_strerror(err));
		return v;
	}
	pw = *s ? getpwnam(s) : NULL;
	if (pw) {
		v = pw->pw_uid;
	} else {
		err = ioprio_parse_uint(s, UINT_MAX - 1, &v);
		if (err == IOPRIO_PARSE_RANGE)
			errx(EXIT_USAGE, "invalid user id '%s': out of range", s);
		if (err)
			errx(EXIT_USAGE, "unknown user '%s'", s);
	}
	/* The system calls read user 0 as the caller's own user. */
	if (!v && getuid())
		errx(EXIT_USAGE, "user '%s' is uid 0, which only root can name "
		     "(the kernel reads uid 0 as the caller)", s);
	return v;
}

static void add_target(struct targets *t, int which, char *arg)
{
	int *ids = realloc(t->ids, (t->n + 1) * sizeof(*ids));
	char **args = realloc(t->args, (t->n + 1) * sizeof(*args));

	if (!ids || !args)
		err(EXIT_FAILURE, "out of memory");
	t->ids = ids;
	t->args = args;
	t->ids[t->n] = parse_id(which, arg);
	t->args[t->n++] = arg;
}

/* One line that names the cause of a failed ioprio_get/ioprio_set. */
static void report(const struct targets *t, int i, int err, int level)
{
	char what[64];

	if (t->which == IOPRIO_WHO_USER)
		snprintf(what, sizeof(what), "user %s", t->args[i]);
	else if (t->which)
		snprintf(what, sizeof(what), "%s %d", who_names[t->which],
			 t->ids[i]);
	else
		snprintf(what, sizeof(what), "cannot set level %d", level);

	if (err == EPERM && level == IOPRIO_LEVEL_RT && !ioprio_may_set_rt())
		warnx("real time (level 20) needs CAP_SYS_ADMIN or CAP_SYS_NICE");
	else if (err == EPERM && level >= 0 && t->which)
		warnx("%s: permission denied (changing another user's "
		      "processes needs CAP_SYS_NICE)", what);
	else if (err == EINVAL && level >= 0 &&
		 ioprio_read_from_nice(IOPRIO_FROM_NICE_PATH) < 0)
		warnx("%s: this kernel has no I/O priority levels (no %s)",
		      what, IOPRIO_FROM_NICE_PATH);
	else if (err == ESRCH)
		warnx("%s: no such process", what);
	else
		warnx("%s: %s", what, strerror(err));
}

static int show(const struct targets *t)
{
	int from_nice = ioprio_read_from_nice(IOPRIO_FROM_NICE_PATH);
	char desc[IOPRIO_DESCRIBE_MAX];
	struct ioprio_task task;
	int i, rc = EXIT_SUCCESS;

	if (!t->which) {
		if (ioprio_read_task(IOPRIO_WHO_PROCESS, 0, from_nice, &task))
			err(EXIT_FAILURE, "cannot read the I/O priority");
		ioprio_describe(desc, sizeof(desc), &task);
		puts(desc);
		return rc;
	}
	for (i = 0; i < t->n; i++) {
		if (ioprio_read_task(t->which, t->ids[i], from_nice, &task)) {
			report(t, i, errno, -1);
			rc = EXIT_FAILURE;
			continue;
		}
		ioprio_describe(desc, sizeof(desc), &task);
		if (t->which == IOPRIO_WHO_USER)
			printf("%s: %s\n", t->args[i], desc);
		else
			printf("%d: %s\n", t->ids[i], desc);
	}
	return rc;
}

static int set(const struct targets *t, int level, int ignore)
{
	int value = ioprio_level_value(level);
	int *old = calloc(t->n, sizeof(*old));
	int i, e;

	if (!old)
		err(EXIT_FAILURE, "out of memory");
	/* Every target must exist before any is changed. */
	for (i = 0; i < t->n && !ignore; i++) {
		old[i] = ioprio_sys_get(t->which, t->ids[i]);
		if (old[i] < 0) {
			report(t, i, errno, level);
			free(old);
			return EXIT_FAILURE;
		}
	}
	for (i = 0; i < t->n; i++) {
		if (!ioprio_sys_set(t->which, t->ids[i], value) || ignore)
			continue;
		e = errno;
		report(t, i, e, level);
		/* Put back the pids already set; a group has only one. */
		while (i-- > 0)
			if (ioprio_sys_set(t->which, t->ids[i], old[i]))
				warn("pid %d: cannot restore its old I/O priority",
				     t->ids[i]);
		free(old);
		return EXIT_FAILURE;
	}
	free(old);
	return EXIT_SUCCESS;
}

/*
 * Whether a PATH entry holds name.  execvp() fails with EACCES rather than
 * ENOENT when a folder on PATH cannot be searched; like a shell, call the
 * command not found unless some folder has it.
 */
static int on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char file[PATH_MAX];

	for (p = path ? path : "/bin:/usr/bin"; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (end == p)
			snprintf(file, sizeof(file), "%s", name);
		else
			snprintf(file, sizeof(file), "%.*s/%s", (int)(end - p), p, name);
		if (!access(file, F_OK))
			return 1;
		if (!*end)
			return 0;
	}
}

static void __attribute__((noreturn)) run(int level, int ignore, char **cmd)
{
	static const struct targets self;
	int e;

	if (ioprio_sys_set(IOPRIO_WHO_PROCESS, 0, ioprio_level_value(level)) &&
	    !ignore) {
		report(&self, 0, errno, level);
		exit(EXIT_FAILURE);
	}
	execvp(cmd[0], cmd);
	e = errno;
	if (e == ENOENT || (!strchr(cmd[0], '/') && !on_path(cmd[0])))
		errx(EXIT_NOT_FOUND, "%s: command not found", cmd[0]);
	errx(EXIT_CANNOT_RUN, "cannot run %s: %s", cmd[0], strerror(e));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "level",   required_argument, NULL, 'n' },
		{ "pid",     required_argument, NULL, 'p' },
		{ "pgrp",    required_argument, NULL, 'g' },
		{ "user",    required_argument, NULL, 'u' },
		{ "ignore",  no_argument,       NULL, 't' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static const char who_opts[] = "?pgu";	/* indexed by IOPRIO_WHO_* */
	struct targets t = { 0 };
	int c, which, perr, rc, level = -1, ignore = 0;

	atexit(close_stdout);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:n:p:g:u:thV", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			perr = ioprio_parse_level(optarg, &level);
			if (perr)
				errx(EXIT_USAGE, "invalid level '%s': %s (use 0..20, "
				     "idle, normal or rt)", optarg,
				     ioprio_parse_strerror(perr));
			break;
		case 'p':
		case 'g':
		case 'u':
			which = strchr(who_opts, c) - who_opts;
			if (t.which && t.which != which)
				errx(EXIT_USAGE, "only one of -p, -g and -u can be given");
			if (t.which && which != IOPRIO_WHO_PROCESS)
				errx(EXIT_USAGE, "-%c takes one %s", c, who_names[which]);
			t.which = which;
			add_target(&t, which, optarg);
			break;
		case 't':
			ignore = 1;
			break;
		case 'h':
			usage();
		case 'V':
			puts(VERSION_STRING);
			return EXIT_SUCCESS;
		default:
			bad_option(c, argv);
		}
	}

	if (t.which == IOPRIO_WHO_PROCESS)
		for (; optind < argc; optind++)
			add_target(&t, t.which, argv[optind]);
	else if (t.which && optind < argc)
		errx(EXIT_USAGE, "unexpected argument '%s': -%c takes one %s",
		     argv[optind], who_opts[t.which], who_names[t.which]);

	if (level < 0 && optind < argc)
		errx(EXIT_USAGE, "a command needs a level: -n <level>");
	if (level >= 0 && !t.which && optind == argc)
		errx(EXIT_USAGE, "-n needs -p, -g, -u or a command");
	if (level >= 0 && !t.which)
		run(level, ignore, argv + optind);

	rc = level < 0 ? show(&t) : set(&t, level, ignore);
	free(t.ids);
	free(t.args);
	return rc;
}
