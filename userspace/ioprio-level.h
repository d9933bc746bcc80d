/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ioprio-level: the 21 I/O priority levels of cfq-prio, in user space.
 *
 * A level is 0 (idle) .. 20 (real time); 10 is the default.  The kernel
 * carries it as an I/O priority value of class IOPRIO_CLASS_LEVEL with the
 * level in the data field (DESIGN.md 3.1).  The classic classes (realtime,
 * best-effort, idle) map onto the same scale (3.2), and a task that never
 * set a priority (class NONE) gets its level from its CPU scheduling
 * policy and, if /proc/sys/kernel/ioprio_from_nice says so, its nice value
 * (3.3).
 *
 * This file and ioprio-level.c are the one place in user space that
 * encodes that ABI: the ioprio command and its tests use nothing else.
 */
#ifndef IOPRIO_LEVEL_H
#define IOPRIO_LEVEL_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/ioprio.h>

/* Headers older than Linux 6.5 lack the invalid class and level mask. */
#ifndef IOPRIO_NR_CLASSES
#define IOPRIO_NR_CLASSES	8
#define IOPRIO_CLASS_INVALID	7
#endif
#ifndef IOPRIO_PRIO_LEVEL
#define IOPRIO_PRIO_LEVEL(ioprio)	((ioprio) & 7)
#endif

/*
 * Headers without the cfq-prio series: the level class as DESIGN.md 3.1
 * fixes it.  (The patched header makes IOPRIO_CLASS_LEVEL an enum constant,
 * which #if cannot see: test IOPRIO_LEVEL_MAX, and IOPRIO_LEVEL_NR of the
 * series' first headers, too.)
 */
#if !defined(IOPRIO_CLASS_LEVEL) && !defined(IOPRIO_LEVEL_NR) && \
	!defined(IOPRIO_LEVEL_MAX)
#define IOPRIO_CLASS_LEVEL	4
#define IOPRIO_LEVEL_IDLE	0
#define IOPRIO_LEVEL_DEFAULT	10
#define IOPRIO_LEVEL_RT		20
#define IOPRIO_LEVEL_MAX	IOPRIO_LEVEL_RT

static inline __u16 ioprio_level_value(int level)
{
	if (level < 0 || level > IOPRIO_LEVEL_MAX)
		return IOPRIO_CLASS_INVALID << IOPRIO_CLASS_SHIFT;
	return IOPRIO_CLASS_LEVEL << IOPRIO_CLASS_SHIFT | level;
}
#endif

/* The series' first headers named the default and the count differently. */
#ifndef IOPRIO_LEVEL_DEFAULT
#define IOPRIO_LEVEL_DEFAULT	IOPRIO_LEVEL_NORM
#endif
#ifndef IOPRIO_LEVEL_MAX
#define IOPRIO_LEVEL_MAX	(IOPRIO_LEVEL_NR - 1)
#endif

#define IOPRIO_FROM_NICE_PATH	"/proc/sys/kernel/ioprio_from_nice"

/* System calls (glibc has no wrappers): -1 and errno on failure. */
int ioprio_sys_set(int which, int who, int ioprio);
int ioprio_sys_get(int which, int who);

/* Results of the parsers. */
enum {
	IOPRIO_PARSE_OK = 0,
	IOPRIO_PARSE_EMPTY,	/* "" or NULL */
	IOPRIO_PARSE_JUNK,	/* not a number (nor a level name) */
	IOPRIO_PARSE_RANGE,	/* a number, but out of range (or negative) */
};
const char *ioprio_parse_strerror(int err);

/*
 * Decimal digits only, value 0..max: no sign, no space, no base prefix.
 * A '-' followed by digits is IOPRIO_PARSE_RANGE, not junk.
 */
int ioprio_parse_uint(const char *s, unsigned long max, unsigned long *val);

/* 0..20, or idle, normal, rt (any case). */
int ioprio_parse_level(const char *s, int *level);

/* "idle", "normal", "rt" for 0, 10, 20; NULL for the others. */
const char *ioprio_level_name(int level);

/*
 * Level of an I/O priority value: its own for class LEVEL, 3.2 for the
 * classic classes.  -1 for class NONE (see ioprio_nice_level()) and for
 * values no kernel returns.
 */
int ioprio_to_level(int ioprio);

/* The classic value of a level (3.2); the invalid class if out of range. */
int ioprio_level_to_classic(int level);

/*
 * Level of a task that never set a priority (3.3).  from_nice is the
 * ioprio_from_nice sysctl: 1 follows nice and policy, 0 the policy alone
 * (SCHED_IDLE 0, real-time policies 20, the others 10), and -1
 * (no such file: a kernel without levels) takes the level of the classic
 * value that kernel derives, ioprio_nice_classic().
 */
int ioprio_nice_level(int nice, int policy, int from_nice);
int ioprio_nice_classic(int nice, int policy);

/* The sysctl at path: 0 or 1, -1 if it cannot be read (no level support). */
int ioprio_read_from_nice(const char *path);

/* One task, process group or user as ioprio_get() and its nice show it. */
struct ioprio_task {
	int ioprio;	/* ioprio_get() */
	int nice;	/* getpriority() */
	int policy;	/* sched_getscheduler(); SCHED_OTHER for groups */
	int from_nice;	/* ioprio_read_from_nice() */
};

/* Fill t for IOPRIO_WHO_PROCESS/PGRP/USER who; -1 and errno on failure. */
int ioprio_read_task(int which, int who, int from_nice, struct ioprio_task *t);

/* Effective level 0..20 of t, -1 if its value is invalid. */
int ioprio_task_level(const struct ioprio_task *t);

/*
 * Describe an I/O priority value or a task for people, like snprintf():
 *   "level 15", "best-effort 2 (level 14)", "idle (level 0)",
 *   "level 10 (default)", "level 12 (from nice -5)",
 *   "level 0 (from SCHED_IDLE)", "best-effort 4 (level 10, from nice 0)"
 */
#define IOPRIO_DESCRIBE_MAX	64
int ioprio_format(char *buf, size_t size, int ioprio);
int ioprio_describe(char *buf, size_t size, const struct ioprio_task *t);

/*
 * The one-token form, for ps -o ioprio: "15" for a level set, "~12" for a
 * task that never set a priority (the level it gets from nice, its CPU
 * policy or the default), "be/2", "rt/4" and "idle" for the classic
 * classes, "-" for a value no kernel returns.  A task that cannot be read
 * is "-" as well; the caller prints that.
 */
#define IOPRIO_SHORT_MAX	16
int ioprio_format_short(char *buf, size_t size, const struct ioprio_task *t);

/* Whether the caller may set level 20: CAP_SYS_ADMIN or CAP_SYS_NICE. */
int ioprio_may_set_rt(void);

#endif /* IOPRIO_LEVEL_H */
