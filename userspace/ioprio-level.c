// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ioprio-level: system-call wrappers, parsing, formatting and the mappings
 * of DESIGN.md 3.2 and 3.3 for the 21 I/O priority levels.  See
 * ioprio-level.h.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <strings.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "ioprio-level.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE		6
#endif
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK	0x40000000
#endif

/* The ABI of DESIGN.md 3.1, whichever header defined it. */
_Static_assert(IOPRIO_CLASS_LEVEL == 4, "IOPRIO_CLASS_LEVEL is 4");
_Static_assert(IOPRIO_LEVEL_IDLE == 0 && IOPRIO_LEVEL_DEFAULT == 10 &&
	       IOPRIO_LEVEL_RT == 20 && IOPRIO_LEVEL_MAX == 20,
	       "levels are 0 (idle) .. 10 (normal) .. 20 (real time)");

static const struct {
	const char *name;
	int level;
} level_names[] = {
	{ "idle",   IOPRIO_LEVEL_IDLE },
	{ "normal", IOPRIO_LEVEL_DEFAULT },
	{ "rt",     IOPRIO_LEVEL_RT },
};

/* The names util-linux ionice uses for the classic classes. */
static const char *const class_names[] = {
	[IOPRIO_CLASS_NONE] = "none",
	[IOPRIO_CLASS_RT]   = "realtime",
	[IOPRIO_CLASS_BE]   = "best-effort",
	[IOPRIO_CLASS_IDLE] = "idle",
};

int ioprio_sys_set(int which, int who, int ioprio)
{
	return syscall(SYS_ioprio_set, which, who, ioprio);
}

int ioprio_sys_get(int which, int who)
{
	return syscall(SYS_ioprio_get, which, who);
}

const char *ioprio_parse_strerror(int err)
{
	switch (err) {
	case IOPRIO_PARSE_OK:
		return "no error";
	case IOPRIO_PARSE_EMPTY:
		return "empty";
	case IOPRIO_PARSE_JUNK:
		return "not a number";
	case IOPRIO_PARSE_RANGE:
		return "out of range";
	}
	return "unknown error";
}

int ioprio_parse_uint(const char *s, unsigned long max, unsigned long *val)
{
	unsigned long v = 0;
	const char *p;
	int over = 0;

	if (!s || !*s)
		return IOPRIO_PARSE_EMPTY;
	p = s + (*s == '-');
	if (*p < '0' || *p > '9')
		return IOPRIO_PARSE_JUNK;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = *p - '0';

		if (over || v > (ULONG_MAX - d) / 10)
			over = 1;
		else
			v = v * 10 + d;
	}
	if (*p)
		return IOPRIO_PARSE_JUNK;
	if (*s == '-' || over || v > max)
		return IOPRIO_PARSE_RANGE;
	*val = v;
	return IOPRIO_PARSE_OK;
}

int ioprio_parse_level(const char *s, int *level)
{
	unsigned long v;
	size_t i;
	int err;

	for (i = 0; s && i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (!strcasecmp(s, level_names[i].name)) {
			*level = level_names[i].level;
			return IOPRIO_PARSE_OK;
		}
	}
	err = ioprio_parse_uint(s, IOPRIO_LEVEL_MAX, &v);
	if (!err)
		*level = v;
	return err;
}

const char *ioprio_level_name(int level)
{
	size_t i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (level_names[i].level == level)
			return level_names[i].name;
	return NULL;
}

int ioprio_to_level(int ioprio)
{
	int data = IOPRIO_PRIO_DATA(ioprio);

	if (ioprio < 0 || ioprio > 0xffff)
		return -1;
	switch (IOPRIO_PRIO_CLASS(ioprio)) {
	case IOPRIO_CLASS_LEVEL:
		return data <= IOPRIO_LEVEL_MAX ? data : -1;
	case IOPRIO_CLASS_RT:
		return IOPRIO_LEVEL_RT;
	case IOPRIO_CLASS_BE:
		/* BE 0 is 18, BE 4 (the default) 10, BE 7 is 4 */
		return 18 - 2 * IOPRIO_PRIO_LEVEL(ioprio);
	case IOPRIO_CLASS_IDLE:
		return IOPRIO_LEVEL_IDLE;
	}
	return -1;
}

int ioprio_level_to_classic(int level)
{
	int be = (19 - level) / 2;

	if (level < 0 || level > IOPRIO_LEVEL_MAX)
		return IOPRIO_CLASS_INVALID << IOPRIO_CLASS_SHIFT;
	if (level == IOPRIO_LEVEL_RT)
		return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 4);
	if (level == IOPRIO_LEVEL_IDLE)
		return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0);
	return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, be < 7 ? be : 7);
}

static int rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR ||
	       policy == SCHED_DEADLINE;
}

/* The policies that decide the level instead of nice. */
static const char *policy_name(int policy)
{
	switch (policy & ~SCHED_RESET_ON_FORK) {
	case SCHED_IDLE:
		return "SCHED_IDLE";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_DEADLINE:
		return "SCHED_DEADLINE";
	}
	return NULL;
}

static int clamp_nice(int nice)
{
	return nice < -20 ? -20 : nice > 19 ? 19 : nice;
}

int ioprio_nice_classic(int nice, int policy)
{
	/* What a kernel without levels does: task_nice_ioclass/ioprio. */
	int data = (clamp_nice(nice) + 20) / 5;

	policy &= ~SCHED_RESET_ON_FORK;
	if (policy == SCHED_IDLE)
		return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, data);
	if (rt_policy(policy))
		return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, data);
	return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, data);
}

int ioprio_nice_level(int nice, int policy, int from_nice)
{
	if (from_nice < 0)
		return ioprio_to_level(ioprio_nice_classic(nice, policy));
	/* The policy counts whatever ioprio_from_nice says. */
	policy &= ~SCHED_RESET_ON_FORK;
	if (policy == SCHED_IDLE)
		return IOPRIO_LEVEL_IDLE;
	if (rt_policy(policy))
		return IOPRIO_LEVEL_RT;
	if (!from_nice)
		return IOPRIO_LEVEL_DEFAULT;
	/* nice -20 -> 19, 0 -> 10, 19 -> 1 */
	return 19 - (clamp_nice(nice) + 20) * 19 / 40;
}

int ioprio_read_from_nice(const char *path)
{
	FILE *f = fopen(path, "re");
	int c;

	if (!f)
		return -1;
	c = fgetc(f);
	fclose(f);
	if (c == EOF)
		return -1;
	return c != '0';
}

int ioprio_read_task(int which, int who, int from_nice, struct ioprio_task *t)
{
	static const int prio_which[] = {
		[IOPRIO_WHO_PROCESS] = PRIO_PROCESS,
		[IOPRIO_WHO_PGRP]    = PRIO_PGRP,
		[IOPRIO_WHO_USER]    = PRIO_USER,
	};

	if (which < IOPRIO_WHO_PROCESS || which > IOPRIO_WHO_USER) {
		errno = EINVAL;
		return -1;
	}
	t->ioprio = ioprio_sys_get(which, who);
	if (t->ioprio < 0)
		return -1;
	t->nice = 0;
	t->policy = SCHED_OTHER;
	t->from_nice = from_nice;
	if (t->ioprio != IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0))
		return 0;
	/* Never set: nice and policy decide.  Groups: their best nice. */
	errno = 0;
	t->nice = getpriority(prio_which[which], who);
	if (t->nice == -1 && errno)
		return -1;
	if (which == IOPRIO_WHO_PROCESS) {
		t->policy = sched_getscheduler(who);
		if (t->policy < 0)
			return -1;
	}
	return 0;
}

int ioprio_task_level(const struct ioprio_task *t)
{
	if (t->ioprio == IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0))
		return ioprio_nice_level(t->nice, t->policy, t->from_nice);
	return ioprio_to_level(t->ioprio);
}

/* A value, and what it came from inside its parentheses if from is set. */
static int format(char *buf, size_t size, int ioprio, const char *from)
{
	int class = IOPRIO_PRIO_CLASS(ioprio), level = ioprio_to_level(ioprio);
	const char *sep = from ? ", " : "";

	if (!from)
		from = "";
	if (level < 0 && !ioprio)
		return snprintf(buf, size, "none");
	if (level < 0)
		return snprintf(buf, size, "invalid (0x%x)", (unsigned int)ioprio);
	if (class == IOPRIO_CLASS_LEVEL)
		return *from ? snprintf(buf, size, "level %d (%s)", level, from)
			     : snprintf(buf, size, "level %d", level);
	if (class == IOPRIO_CLASS_IDLE)
		return snprintf(buf, size, "idle (level %d%s%s)", level, sep, from);
	return snprintf(buf, size, "%s %d (level %d%s%s)", class_names[class],
			(int)IOPRIO_PRIO_LEVEL(ioprio), level, sep, from);
}

int ioprio_format(char *buf, size_t size, int ioprio)
{
	return format(buf, size, ioprio, NULL);
}

int ioprio_describe(char *buf, size_t size, const struct ioprio_task *t)
{
	const char *policy = policy_name(t->policy);
	char from[32];

	if (t->ioprio != IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0))
		return format(buf, size, t->ioprio, NULL);
	if (!t->from_nice && !policy)
		return snprintf(buf, size, "level %d (default)",
				IOPRIO_LEVEL_DEFAULT);
	if (policy)
		snprintf(from, sizeof(from), "from %s", policy);
	else
		snprintf(from, sizeof(from), "from nice %d", t->nice);
	if (t->from_nice < 0)
		return format(buf, size,
			      ioprio_nice_classic(t->nice, t->policy), from);
	return snprintf(buf, size, "level %d (%s)", ioprio_task_level(t), from);
}

int ioprio_format_short(char *buf, size_t size, const struct ioprio_task *t)
{
	int level = ioprio_task_level(t);

	if (level < 0)
		return snprintf(buf, size, "-");
	switch (IOPRIO_PRIO_CLASS(t->ioprio)) {
	case IOPRIO_CLASS_NONE:
		return snprintf(buf, size, "~%d", level);
	case IOPRIO_CLASS_RT:
		return snprintf(buf, size, "rt/%d", (int)IOPRIO_PRIO_LEVEL(t->ioprio));
	case IOPRIO_CLASS_BE:
		return snprintf(buf, size, "be/%d", (int)IOPRIO_PRIO_LEVEL(t->ioprio));
	case IOPRIO_CLASS_IDLE:
		return snprintf(buf, size, "idle");
	}
	return snprintf(buf, size, "%d", level);
}

int ioprio_may_set_rt(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cap[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, cap))
		return 0;
#define HAS(c) (cap[CAP_TO_INDEX(c)].effective & CAP_TO_MASK(c))
	return HAS(CAP_SYS_ADMIN) || HAS(CAP_SYS_NICE);
#undef HAS
}
