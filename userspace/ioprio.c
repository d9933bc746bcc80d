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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioprio-level.h"

#define VERSION_STRING	"ioprio from cfq-prio 0.1"

/* Exit status, as ioprio(1) documents it (1 is EXIT_FAILURE, also for a
 * bad command line, as in util-linux). */
enum {
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
	      " ioprio [-p <pid>...|-g <pgrp>...|-u <user>...]\n"
	      " ioprio -n <level> [-t] -p <pid>...|-g <pgrp>...|-u <user>...\n"
	      " ioprio -n <level> [-t] [--] <command> [<arg>...]\n"
	      " ioprio -r [-t] -p <pid>...|-g <pgrp>...|-u <user>...|<command> [<arg>...]\n"
	      "\n"
	      "Show or set the I/O priority level of processes, or run a command at a level.\n"
	      "\n"
	      "Options:\n"
	      " -n, --level <level>  level to set: 0..20, idle (0), normal (10) or rt (20);\n"
	      "                        none is --reset\n"
	      " -r, --reset          set no I/O priority: the level follows nice again\n"
	      " -p, --pid <pid>...   show or set these processes\n"
	      " -g, --pgrp <pgrp>... show or set the processes in these process groups\n"
	      " -u, --user <user>... show or set the processes of these users (name or uid)\n"
	      " -t, --ignore         ignore failure to set the level\n"
	      "\n"
	      " -h, --help           display this help\n"
	      " -V, --version        display version\n"
	      "\n"
	      "Higher levels get more of the disk: the opposite direction of nice.\n"
	      "Levels: 0 is served only when the disk is otherwise idle; 1..19 share it in\n"
	      "proportion to level + 1; 20 is real time and needs CAP_SYS_ADMIN or\n"
	      "CAP_SYS_NICE.  A process that never set a level has 10 (0 under SCHED_IDLE,\n"
	      "20 under a real-time policy), or one derived from its nice value if\n"
	      "/proc/sys/kernel/ioprio_from_nice is 1.\n"
	      "\n"
	      "Exit status: 0 success, 1 failure or bad usage, 126 <command> cannot be run,\n"
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

/* A bad command line: one line that says what, and where to look. */
static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	fputs("Try 'ioprio --help' for more information.\n", stderr);
	exit(EXIT_FAILURE);
}

/* getopt_long's complaint, on one line. */
static void __attribute__((noreturn)) bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];
	int len = strcspn(arg, "=");

	if (c == '?' && !optopt)
		usage_error("unknown option '%s'", arg);
	if (c == '?' && strchr("rhtV", optopt))
		usage_error("option '%.*s' takes no argument", len, arg);
	if (c == '?')
		usage_error("unknown option '-%c'", optopt);
	if (!strncmp(arg, "--", 2))
		usage_error("option '%.*s' needs an argument", len, arg);
	usage_error("option '-%c' needs an argument", optopt);
}

static int parse_id(int which, const char *s)
{
	unsigned long v;
	struct passwd *pw;
	int err;

	if (which != IOPRIO_WHO_USER) {
		err = ioprio_parse_uint(s, INT_MAX, &v);
		if (err)
			usage_error("invalid %s '%s': %s", who_names[which],
				    s, ioprio_parse_strerror(err));
		return v;
	}
	pw = *s ? getpwnam(s) : NULL;
	if (pw) {
		v = pw->pw_uid;
	} else {
		err = ioprio_parse_uint(s, UINT_MAX - 1, &v);
		if (err == IOPRIO_PARSE_RANGE)
			usage_error("invalid user id '%s': out of range", s);
		if (err)
			usage_error("unknown user '%s'", s);
	}
	/* The system calls read user 0 as the caller's own user. */
	if (!v && getuid())
		usage_error("user '%s' is uid 0, which only root can name "
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

/* Set value (level, or -1 for class NONE) on every target. */
static int set(const struct targets *t, int value, int level, int ignore)
{
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
		/*
		 * Put back the pids already set.  The old value of a group or
		 * a user is only its best one: those stop where they failed.
		 */
		while (t->which == IOPRIO_WHO_PROCESS && i-- > 0)
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

static void __attribute__((noreturn)) run(int value, int level, int ignore,
					  char **cmd)
{
	static const struct targets self;
	int e;

	if (ioprio_sys_set(IOPRIO_WHO_PROCESS, 0, value) && !ignore) {
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
		{ "reset",   no_argument,       NULL, 'r' },
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
	int c, which, perr, rc, level = -1, value = -1, ignore = 0;

	atexit(close_stdout);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:n:rp:g:u:thV", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!strcasecmp(optarg, "none")) {
				level = -1;
				value = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0);
				break;
			}
			perr = ioprio_parse_level(optarg, &level);
			if (perr)
				usage_error("invalid level '%s': %s (use 0..20, "
					    "idle, normal, rt or none)", optarg,
					    ioprio_parse_strerror(perr));
			value = ioprio_level_value(level);
			break;
		case 'r':
			level = -1;
			value = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0);
			break;
		case 'p':
		case 'g':
		case 'u':
			which = strchr(who_opts, c) - who_opts;
			if (t.which && t.which != which)
				usage_error("only one of -p, -g and -u can be given");
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

	/* The arguments after -p, -g or -u are more of the same. */
	if (t.which)
		for (; optind < argc; optind++)
			add_target(&t, t.which, argv[optind]);

	if (value < 0 && optind < argc)
		usage_error("a command needs a level: -n <level>");
	if (value >= 0 && !t.which && optind == argc)
		usage_error("%s needs -p, -g, -u or a command",
			    level < 0 ? "--reset" : "-n");
	if (value >= 0 && !t.which)
		run(value, level, ignore, argv + optind);

	rc = value < 0 ? show(&t) : set(&t, value, level, ignore);
	free(t.ids);
	free(t.args);
	return rc;
}
