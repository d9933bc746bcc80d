// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of ioprio-level.c: parsing, formatting and the mappings of
 * DESIGN.md 3.2 and 3.3, checked against tables written out here by hand
 * (never computed with the library's own formulas).  Needs no kernel
 * support for levels.  Prints one line per check,
 *
 *   ok - host/ioprio-lib: DESCRIPTION
 *   not ok - host/ioprio-lib: DESCRIPTION
 *   #   what differed
 *
 * and exits 1 if any check failed.
 */
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioprio-level.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE		6
#endif
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK	0x40000000
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Encodings written out, not built with the header's macros. */
#define RT(d)		(0x2000 | (d))
#define BE(d)		(0x4000 | (d))
#define IDLE(d)		(0x6000 | (d))
#define LEVEL(l)	(0x8000 | (l))
#define INVALID		0xe000

static int failures;
static int nnotes;
static char notes[2048];

/* A detail for the check in progress; any note fails it. */
static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	size_t len = strlen(notes);
	va_list ap;

	if (nnotes++ >= 10 || len >= sizeof(notes) - 2)
		return;
	va_start(ap, fmt);
	vsnprintf(notes + len, sizeof(notes) - len - 1, fmt, ap);
	va_end(ap);
	strcat(notes, "\n");
}

/* End the check in progress: one result line, then its notes. */
static void __attribute__((format(printf, 1, 2))) result(const char *fmt, ...)
{
	char *line, *next;
	va_list ap;

	printf("%sok - host/ioprio-lib: ", nnotes ? "not " : "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	for (line = notes; *line; line = next) {
		next = strchr(line, '\n') + 1;
		printf("#   %.*s\n", (int)(next - line - 1), line);
	}
	if (nnotes > 10)
		printf("#   ... and %d more\n", nnotes - 10);
	failures += nnotes > 0;
	nnotes = 0;
	notes[0] = '\0';
}

static void expect_int(long got, long want, const char *what)
{
	if (got != want)
		note("%s: expected %ld (0x%lx), got %ld (0x%lx)", what, want,
		     want, got, got);
}

static void expect_str(const char *got, const char *want, const char *what)
{
	if (!got || strcmp(got, want))
		note("%s: expected \"%s\", got \"%s\"", what, want,
		     got ? got : "(null)");
}

/* s as a C string literal, for the result lines. */
static const char *quote(const char *s)
{
	static char buf[128];
	size_t n = 0;

	if (!s)
		return "NULL";
	buf[n++] = '"';
	for (; *s && n < sizeof(buf) - 6; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			n += sprintf(buf + n, "\\%c", c);
		else if (c == '\t' || c == '\n')
			n += sprintf(buf + n, "\\%c", c == '\t' ? 't' : 'n');
		else if (c < 0x20 || c >= 0x7f)
			n += sprintf(buf + n, "\\x%02x", c);
		else
			buf[n++] = c;
	}
	strcpy(buf + n, "\"");
	return buf;
}

static void test_constants(void)
{
	expect_int(IOPRIO_CLASS_LEVEL, 4, "IOPRIO_CLASS_LEVEL");
	expect_int(IOPRIO_LEVEL_IDLE, 0, "IOPRIO_LEVEL_IDLE");
	expect_int(IOPRIO_LEVEL_DEFAULT, 10, "IOPRIO_LEVEL_DEFAULT");
	expect_int(IOPRIO_LEVEL_RT, 20, "IOPRIO_LEVEL_RT");
	expect_int(IOPRIO_LEVEL_MAX, 20, "IOPRIO_LEVEL_MAX");
	expect_int(IOPRIO_CLASS_SHIFT, 13, "IOPRIO_CLASS_SHIFT");
	result("the level constants are those of DESIGN.md 3.1");
}

static void test_level_value(void)
{
	static const int bad[] = { -1, 21, 22, 100, 0x2000 | 5, INT_MIN, INT_MAX };
	char what[64];
	size_t i;
	int l;

	for (l = 0; l <= 20; l++) {
		snprintf(what, sizeof(what), "ioprio_level_value(%d)", l);
		expect_int(ioprio_level_value(l), LEVEL(l), what);
	}
	result("ioprio_level_value() encodes 0..20 as class 4 with the level as data");

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(what, sizeof(what), "ioprio_level_value(%d)", bad[i]);
		expect_int(ioprio_level_value(bad[i]), INVALID, what);
	}
	result("ioprio_level_value() gives the invalid class for levels out of range");
}

static void test_parse_good(void)
{
	static const struct {
		const char *s;
		int level;
	} names[] = {
		{ "idle", 0 }, { "normal", 10 }, { "rt", 20 },
		{ "IDLE", 0 }, { "Normal", 10 }, { "RT", 20 },
		{ "00", 0 }, { "007", 7 }, { "020", 20 },
	};
	char s[16], what[64];
	size_t i;
	int l, got;

	for (l = 0; l <= 20; l++) {
		snprintf(s, sizeof(s), "%d", l);
		got = -1;
		snprintf(what, sizeof(what), "parse \"%s\" error", s);
		expect_int(ioprio_parse_level(s, &got), IOPRIO_PARSE_OK, what);
		snprintf(what, sizeof(what), "parse \"%s\" level", s);
		expect_int(got, l, what);
	}
	result("parse_level accepts every level 0..20");

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		got = -1;
		expect_int(ioprio_parse_level(names[i].s, &got), IOPRIO_PARSE_OK,
			   "error");
		expect_int(got, names[i].level, "level");
		result("parse_level accepts %s as %d", quote(names[i].s),
		       names[i].level);
	}
}

static void test_parse_bad(void)
{
	static const struct {
		const char *s;
		int err;
	} bad[] = {
		{ "21", IOPRIO_PARSE_RANGE },
		{ "100", IOPRIO_PARSE_RANGE },
		{ "-1", IOPRIO_PARSE_RANGE },
		{ "-0", IOPRIO_PARSE_RANGE },
		{ "-21", IOPRIO_PARSE_RANGE },
		{ "2147483648", IOPRIO_PARSE_RANGE },
		{ "4294967296", IOPRIO_PARSE_RANGE },
		{ "4294967306", IOPRIO_PARSE_RANGE },	/* 2^32 + 10 */
		{ "18446744073709551616", IOPRIO_PARSE_RANGE },
		{ "18446744073709551626", IOPRIO_PARSE_RANGE },	/* 2^64 + 10 */
		{ "99999999999999999999999999999999", IOPRIO_PARSE_RANGE },
		{ "-99999999999999999999999999999999", IOPRIO_PARSE_RANGE },
		{ "", IOPRIO_PARSE_EMPTY },
		{ NULL, IOPRIO_PARSE_EMPTY },
		{ "abc", IOPRIO_PARSE_JUNK },
		{ "1x", IOPRIO_PARSE_JUNK },
		{ "x1", IOPRIO_PARSE_JUNK },
		{ " 5", IOPRIO_PARSE_JUNK },
		{ "5 ", IOPRIO_PARSE_JUNK },
		{ "\t5", IOPRIO_PARSE_JUNK },
		{ "5\n", IOPRIO_PARSE_JUNK },
		{ "1 0", IOPRIO_PARSE_JUNK },
		{ "0x5", IOPRIO_PARSE_JUNK },
		{ "0x", IOPRIO_PARSE_JUNK },
		{ "+5", IOPRIO_PARSE_JUNK },
		{ "+", IOPRIO_PARSE_JUNK },
		{ "-", IOPRIO_PARSE_JUNK },
		{ "--5", IOPRIO_PARSE_JUNK },
		{ "-+5", IOPRIO_PARSE_JUNK },
		{ "- 5", IOPRIO_PARSE_JUNK },
		{ "-5x", IOPRIO_PARSE_JUNK },
		{ "1.0", IOPRIO_PARSE_JUNK },
		{ "1e1", IOPRIO_PARSE_JUNK },
		{ "\xef\xbc\x95", IOPRIO_PARSE_JUNK },	/* fullwidth 5 */
		{ "\xd9\xa5", IOPRIO_PARSE_JUNK },	/* Arabic-Indic 5 */
		{ "idle ", IOPRIO_PARSE_JUNK },
		{ " rt", IOPRIO_PARSE_JUNK },
		{ "idl", IOPRIO_PARSE_JUNK },
		{ "realtime", IOPRIO_PARSE_JUNK },
		{ "none", IOPRIO_PARSE_JUNK },
		{ "best-effort", IOPRIO_PARSE_JUNK },
		{ "rt1", IOPRIO_PARSE_JUNK },
	};
	size_t i;
	int got;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		got = -12345;
		expect_int(ioprio_parse_level(bad[i].s, &got), bad[i].err, "error");
		expect_int(got, -12345, "level written on error");
		result("parse_level rejects %s: %s", quote(bad[i].s),
		       ioprio_parse_strerror(bad[i].err));
	}
}

static void test_parse_uint(void)
{
	static const struct {
		const char *s;
		unsigned long max;
		int err;
		unsigned long val;
	} cases[] = {
		{ "0", 0, IOPRIO_PARSE_OK, 0 },
		{ "1", 0, IOPRIO_PARSE_RANGE, 0 },
		{ "2147483647", INT_MAX, IOPRIO_PARSE_OK, INT_MAX },
		{ "2147483648", INT_MAX, IOPRIO_PARSE_RANGE, 0 },
		{ "4294967294", UINT_MAX - 1, IOPRIO_PARSE_OK, UINT_MAX - 1 },
		{ "4294967295", UINT_MAX - 1, IOPRIO_PARSE_RANGE, 0 },
		{ "18446744073709551615", ULONG_MAX, IOPRIO_PARSE_OK, ULONG_MAX },
		{ "18446744073709551616", ULONG_MAX, IOPRIO_PARSE_RANGE, 0 },
		{ "-5", INT_MAX, IOPRIO_PARSE_RANGE, 0 },
		{ "5-", INT_MAX, IOPRIO_PARSE_JUNK, 0 },
		{ "", INT_MAX, IOPRIO_PARSE_EMPTY, 0 },
	};
	unsigned long v;
	size_t i;
	char what[96];

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = 12345;
		snprintf(what, sizeof(what), "parse_uint(%s, %lu)",
			 quote(cases[i].s), cases[i].max);
		expect_int(ioprio_parse_uint(cases[i].s, cases[i].max, &v),
			   cases[i].err, what);
		expect_int(v, cases[i].err ? 12345 : cases[i].val, what);
	}
	result("parse_uint takes digits up to the maximum, without wrapping");

	for (i = IOPRIO_PARSE_OK; i <= IOPRIO_PARSE_RANGE; i++) {
		const char *m = ioprio_parse_strerror(i);
		size_t j;

		for (j = IOPRIO_PARSE_OK; j < i; j++)
			if (!strcmp(m, ioprio_parse_strerror(j)))
				note("errors %zu and %zu both read \"%s\"", j, i, m);
	}
	expect_str(ioprio_parse_strerror(IOPRIO_PARSE_JUNK), "not a number", "JUNK");
	expect_str(ioprio_parse_strerror(IOPRIO_PARSE_RANGE), "out of range", "RANGE");
	result("each parse error has its own message");
}

static void test_level_names(void)
{
	char what[32];
	int l, back;

	expect_str(ioprio_level_name(0), "idle", "level 0");
	expect_str(ioprio_level_name(10), "normal", "level 10");
	expect_str(ioprio_level_name(20), "rt", "level 20");
	for (l = -1; l <= 21; l++) {
		snprintf(what, sizeof(what), "level %d", l);
		if (l % 10 && ioprio_level_name(l))
			note("%s has a name, \"%s\"", what, ioprio_level_name(l));
		if (!ioprio_level_name(l))
			continue;
		back = -1;
		ioprio_parse_level(ioprio_level_name(l), &back);
		expect_int(back, l, what);
	}
	result("levels 0, 10 and 20 are named idle, normal and rt, and only they");
}

/* DESIGN.md 3.2, left: classic to level. */
static void test_classic_to_level(void)
{
	static const int be[8] = { 18, 16, 14, 12, 10, 8, 6, 4 };
	static const int odd[] = { 0, 1, 0x0005, 0xa000, 0xa005, 0xc000,
				   INVALID, INVALID | 3, LEVEL(21), LEVEL(31),
				   LEVEL(0x1fff), -1, 0x10000 | BE(2), INT_MIN };
	char what[48];
	size_t i;
	int d;

	for (d = 0; d < 8; d++) {
		snprintf(what, sizeof(what), "realtime %d", d);
		expect_int(ioprio_to_level(RT(d)), 20, what);
	}
	result("every realtime level maps to level 20");

	for (d = 0; d < 8; d++) {
		snprintf(what, sizeof(what), "best-effort %d", d);
		expect_int(ioprio_to_level(BE(d)), be[d], what);
		snprintf(what, sizeof(what), "best-effort %d with hint 1", d);
		expect_int(ioprio_to_level(BE(d) | 1 << 3), be[d], what);
	}
	result("best-effort 0..7 map to levels 18, 16, .. 4, whatever the hint bits");

	for (d = 0; d < 8; d++) {
		snprintf(what, sizeof(what), "idle %d", d);
		expect_int(ioprio_to_level(IDLE(d)), 0, what);
	}
	result("idle maps to level 0");

	for (d = 0; d <= 20; d++) {
		snprintf(what, sizeof(what), "level %d", d);
		expect_int(ioprio_to_level(LEVEL(d)), d, what);
	}
	result("class LEVEL gives its own level 0..20");

	for (i = 0; i < ARRAY_SIZE(odd); i++) {
		snprintf(what, sizeof(what), "value 0x%x", odd[i]);
		expect_int(ioprio_to_level(odd[i]), -1, what);
	}
	result("none, unknown classes and levels above 20 have no level");
}

/* DESIGN.md 3.2, right: level to classic. */
static void test_level_to_classic(void)
{
	static const int classic[21] = {
		IDLE(0), BE(7), BE(7), BE(7), BE(7), BE(7), BE(6), BE(6),
		BE(5), BE(5), BE(4), BE(4), BE(3), BE(3), BE(2), BE(2),
		BE(1), BE(1), BE(0), BE(0), RT(4),
	};
	static const int bad[] = { -1, 21, 100, INT_MIN, INT_MAX };
	char what[48];
	size_t i;
	int l, d;

	for (l = 0; l <= 20; l++) {
		snprintf(what, sizeof(what), "level %d", l);
		expect_int(ioprio_level_to_classic(l), classic[l], what);
	}
	result("levels 0..20 map to idle, best-effort min(7, (19 - l) / 2), realtime 4");

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(what, sizeof(what), "level %d", bad[i]);
		expect_int(ioprio_level_to_classic(bad[i]), INVALID, what);
	}
	result("levels out of range map to the invalid class");

	for (d = 0; d < 8; d++) {
		snprintf(what, sizeof(what), "best-effort %d", d);
		expect_int(ioprio_level_to_classic(ioprio_to_level(BE(d))), BE(d),
			   what);
	}
	expect_int(ioprio_level_to_classic(ioprio_to_level(IDLE(0))), IDLE(0), "idle");
	expect_int(ioprio_level_to_classic(ioprio_to_level(RT(4))), RT(4), "realtime 4");
	result("classic to level and back is the identity for best-effort, idle, realtime 4");

	for (l = 1; l <= 20; l++)
		if (ioprio_to_level(ioprio_level_to_classic(l)) <
		    ioprio_to_level(ioprio_level_to_classic(l - 1)))
			note("level %d maps below level %d", l, l - 1);
	result("the classic view keeps the order of the levels");
}

/* DESIGN.md 3.3: a task that never set a priority. */
static void test_nice(void)
{
	/* 19 - (nice + 20) * 19 / 40 for nice -20..19 */
	static const int from_nice[40] = {
		19, 19, 19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13,
		12, 12, 11, 11, 10, 10, 10, 9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 4,
		4, 3, 3, 2, 2, 1, 1,
	};
	/* level of best-effort (nice + 20) / 5, a kernel without levels */
	static const int classic[40] = {
		18, 18, 18, 18, 18, 16, 16, 16, 16, 16, 14, 14, 14, 14, 14,
		12, 12, 12, 12, 12, 10, 10, 10, 10, 10, 8, 8, 8, 8, 8, 6, 6,
		6, 6, 6, 4, 4, 4, 4, 4,
	};
	static const int policies[] = { SCHED_OTHER, SCHED_BATCH, SCHED_IDLE,
					SCHED_FIFO, SCHED_RR, SCHED_DEADLINE };
	char what[64];
	size_t p;
	int n;

	for (n = -20; n <= 19; n++) {
		snprintf(what, sizeof(what), "nice %d, SCHED_OTHER", n);
		expect_int(ioprio_nice_level(n, SCHED_OTHER, 1), from_nice[n + 20], what);
		snprintf(what, sizeof(what), "nice %d, SCHED_BATCH", n);
		expect_int(ioprio_nice_level(n, SCHED_BATCH, 1), from_nice[n + 20], what);
	}
	result("ioprio_from_nice=1: nice -20..19 give 19 - (nice + 20) * 19 / 40");

	expect_int(ioprio_nice_level(-20, SCHED_OTHER, 1), 19, "nice -20");
	expect_int(ioprio_nice_level(0, SCHED_OTHER, 1), 10, "nice 0");
	expect_int(ioprio_nice_level(19, SCHED_OTHER, 1), 1, "nice 19");
	expect_int(ioprio_nice_level(-100, SCHED_OTHER, 1), 19, "nice -100");
	expect_int(ioprio_nice_level(100, SCHED_OTHER, 1), 1, "nice 100");
	result("ioprio_from_nice=1: nice -20 is 19, 0 is 10, 19 is 1 (and beyond clamps)");

	for (n = -20; n <= 19; n++) {
		snprintf(what, sizeof(what), "nice %d, SCHED_IDLE", n);
		expect_int(ioprio_nice_level(n, SCHED_IDLE, 1), 0, what);
		snprintf(what, sizeof(what), "nice %d, SCHED_FIFO", n);
		expect_int(ioprio_nice_level(n, SCHED_FIFO, 1), 20, what);
		snprintf(what, sizeof(what), "nice %d, SCHED_RR", n);
		expect_int(ioprio_nice_level(n, SCHED_RR, 1), 20, what);
		snprintf(what, sizeof(what), "nice %d, SCHED_DEADLINE", n);
		expect_int(ioprio_nice_level(n, SCHED_DEADLINE, 1), 20, what);
		snprintf(what, sizeof(what), "nice %d, SCHED_FIFO|RESET_ON_FORK", n);
		expect_int(ioprio_nice_level(n, SCHED_FIFO | SCHED_RESET_ON_FORK, 1),
			   20, what);
		snprintf(what, sizeof(what), "nice %d, SCHED_IDLE|RESET_ON_FORK", n);
		expect_int(ioprio_nice_level(n, SCHED_IDLE | SCHED_RESET_ON_FORK, 1),
			   0, what);
	}
	result("ioprio_from_nice=1: SCHED_IDLE is level 0, real-time policies 20, at any nice");

	for (n = -20; n <= 19; n++)
		for (p = 0; p < ARRAY_SIZE(policies); p++) {
			int want = policies[p] == SCHED_IDLE ? 0 :
				   policies[p] == SCHED_OTHER ||
				   policies[p] == SCHED_BATCH ? 10 : 20;

			snprintf(what, sizeof(what), "nice %d, policy %d", n,
				 policies[p]);
			expect_int(ioprio_nice_level(n, policies[p], 0), want, what);
			expect_int(ioprio_nice_level(n, policies[p] | SCHED_RESET_ON_FORK, 0),
				   want, what);
		}
	result("ioprio_from_nice=0: level 10 at every nice value, SCHED_IDLE 0, real-time policies 20");

	for (n = -20; n <= 19; n++) {
		snprintf(what, sizeof(what), "nice %d", n);
		expect_int(ioprio_nice_classic(n, SCHED_OTHER), BE((n + 20) / 5), what);
		expect_int(ioprio_nice_level(n, SCHED_OTHER, -1), classic[n + 20], what);
		expect_int(IOPRIO_PRIO_CLASS(ioprio_nice_classic(n, SCHED_IDLE)),
			   IOPRIO_CLASS_IDLE, what);
		expect_int(ioprio_nice_level(n, SCHED_IDLE, -1), 0, what);
		expect_int(IOPRIO_PRIO_CLASS(ioprio_nice_classic(n, SCHED_RR)),
			   IOPRIO_CLASS_RT, what);
		expect_int(ioprio_nice_level(n, SCHED_FIFO, -1), 20, what);
	}
	result("no sysctl (kernel without levels): the classic best-effort (nice + 20) / 5");
}

static void test_format(void)
{
	static const struct {
		int ioprio;
		const char *text;
	} cases[] = {
		{ LEVEL(0), "level 0" },
		{ LEVEL(15), "level 15" },
		{ LEVEL(20), "level 20" },
		{ BE(2), "best-effort 2 (level 14)" },
		{ BE(7), "best-effort 7 (level 4)" },
		{ BE(2) | 1 << 3, "best-effort 2 (level 14)" },
		{ RT(0), "realtime 0 (level 20)" },
		{ RT(7), "realtime 7 (level 20)" },
		{ IDLE(0), "idle (level 0)" },
		{ IDLE(7), "idle (level 0)" },
		{ 0, "none" },
		{ LEVEL(21), "invalid (0x8015)" },
		{ INVALID, "invalid (0xe000)" },
		{ 0xa000, "invalid (0xa000)" },
	};
	char buf[IOPRIO_DESCRIBE_MAX];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		n = ioprio_format(buf, sizeof(buf), cases[i].ioprio);
		expect_str(buf, cases[i].text, "text");
		expect_int(n, strlen(cases[i].text), "length");
		result("format 0x%04x as \"%s\"", cases[i].ioprio, cases[i].text);
	}

	memset(buf, 'x', sizeof(buf));
	n = ioprio_format(buf, 8, BE(2));
	expect_str(buf, "best-ef", "text");
	expect_int(n, strlen("best-effort 2 (level 14)"), "length");
	result("format truncates like snprintf and returns the full length");
}

static void test_describe(void)
{
	static const struct {
		struct ioprio_task t;
		const char *text;
		int level;
	} cases[] = {
		{ { LEVEL(15), 0, SCHED_OTHER, 1 }, "level 15", 15 },
		{ { LEVEL(15), -5, SCHED_IDLE, 0 }, "level 15", 15 },
		{ { BE(2), 0, SCHED_OTHER, 1 }, "best-effort 2 (level 14)", 14 },
		{ { IDLE(0), 0, SCHED_FIFO, 1 }, "idle (level 0)", 0 },
		{ { 0, 0, SCHED_OTHER, 0 }, "level 10 (default)", 10 },
		{ { 0, -5, SCHED_OTHER, 0 }, "level 10 (default)", 10 },
		{ { 0, 0, SCHED_BATCH, 0 }, "level 10 (default)", 10 },
		{ { 0, 0, SCHED_FIFO, 0 }, "level 20 (from SCHED_FIFO)", 20 },
		{ { 0, -5, SCHED_RR, 0 }, "level 20 (from SCHED_RR)", 20 },
		{ { 0, 5, SCHED_IDLE, 0 }, "level 0 (from SCHED_IDLE)", 0 },
		{ { 0, -5, SCHED_OTHER, 1 }, "level 12 (from nice -5)", 12 },
		{ { 0, 0, SCHED_OTHER, 1 }, "level 10 (from nice 0)", 10 },
		{ { 0, 19, SCHED_BATCH, 1 }, "level 1 (from nice 19)", 1 },
		{ { 0, 5, SCHED_IDLE, 1 }, "level 0 (from SCHED_IDLE)", 0 },
		{ { 0, 0, SCHED_FIFO, 1 }, "level 20 (from SCHED_FIFO)", 20 },
		{ { 0, 0, SCHED_RR, 1 }, "level 20 (from SCHED_RR)", 20 },
		{ { 0, 0, SCHED_DEADLINE, 1 }, "level 20 (from SCHED_DEADLINE)", 20 },
		{ { 0, 0, SCHED_RR | SCHED_RESET_ON_FORK, 1 },
		  "level 20 (from SCHED_RR)", 20 },
		{ { 0, 0, SCHED_OTHER, -1 }, "best-effort 4 (level 10, from nice 0)", 10 },
		{ { 0, -5, SCHED_OTHER, -1 }, "best-effort 3 (level 12, from nice -5)", 12 },
		{ { 0, 19, SCHED_OTHER, -1 }, "best-effort 7 (level 4, from nice 19)", 4 },
		{ { 0, 3, SCHED_IDLE, -1 }, "idle (level 0, from SCHED_IDLE)", 0 },
		{ { 0, 0, SCHED_FIFO, -1 }, "realtime 4 (level 20, from SCHED_FIFO)", 20 },
		{ { BE(2), 0, SCHED_OTHER, -1 }, "best-effort 2 (level 14)", 14 },
	};
	char buf[IOPRIO_DESCRIBE_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct ioprio_task *t = &cases[i].t;
		int n = ioprio_describe(buf, sizeof(buf), t);

		expect_str(buf, cases[i].text, "text");
		expect_int(n, strlen(cases[i].text), "length");
		expect_int(ioprio_task_level(t), cases[i].level, "ioprio_task_level");
		result("describe 0x%04x, nice %d, policy %#x, ioprio_from_nice %d as \"%s\"",
		       t->ioprio, t->nice, t->policy, t->from_nice, cases[i].text);
	}
}

static void test_format_short(void)
{
	static const struct {
		struct ioprio_task t;
		const char *text;
	} cases[] = {
		{ { LEVEL(15), 0, SCHED_OTHER, 1 }, "15" },
		{ { LEVEL(0), 0, SCHED_OTHER, 1 }, "0" },
		{ { LEVEL(20), 5, SCHED_IDLE, 0 }, "20" },
		{ { 0, -5, SCHED_OTHER, 1 }, "~12" },
		{ { 0, 0, SCHED_OTHER, 1 }, "~10" },
		{ { 0, 19, SCHED_OTHER, 1 }, "~1" },
		{ { 0, -5, SCHED_OTHER, 0 }, "~10" },
		{ { 0, 0, SCHED_IDLE, 1 }, "~0" },
		{ { 0, 0, SCHED_FIFO, 1 }, "~20" },
		{ { 0, 0, SCHED_FIFO, 0 }, "~20" },
		{ { 0, 0, SCHED_IDLE, 0 }, "~0" },
		{ { 0, 5, SCHED_BATCH, 0 }, "~10" },
		{ { 0, 19, SCHED_OTHER, -1 }, "~4" },
		{ { BE(2), 0, SCHED_OTHER, 1 }, "be/2" },
		{ { BE(7), 0, SCHED_OTHER, 1 }, "be/7" },
		{ { RT(4), 0, SCHED_OTHER, 1 }, "rt/4" },
		{ { RT(0), 0, SCHED_OTHER, 1 }, "rt/0" },
		{ { IDLE(0), 0, SCHED_OTHER, 1 }, "idle" },
		{ { LEVEL(21), 0, SCHED_OTHER, 1 }, "-" },
		{ { INVALID, 0, SCHED_OTHER, 1 }, "-" },
		{ { 0xa000, 0, SCHED_OTHER, 1 }, "-" },
	};
	char buf[IOPRIO_SHORT_MAX];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct ioprio_task *t = &cases[i].t;

		n = ioprio_format_short(buf, sizeof(buf), t);
		expect_str(buf, cases[i].text, "text");
		expect_int(n, strlen(cases[i].text), "length");
		result("short form of 0x%04x, nice %d, policy %#x, ioprio_from_nice %d is \"%s\"",
		       t->ioprio, t->nice, t->policy, t->from_nice, cases[i].text);
	}
}

static void test_read_from_nice(void)
{
	static const struct {
		const char *content;
		int want;
	} cases[] = {
		{ "1\n", 1 }, { "0\n", 0 }, { "", -1 }, { NULL, -1 },
	};
	char path[] = "/tmp/test-ioprio-level.XXXXXX";
	size_t i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int fd = mkstemp(path);

		if (fd < 0) {
			note("mkstemp: %m");
			break;
		}
		close(fd);
		if (cases[i].content) {
			f = fopen(path, "w");
			if (f) {
				fputs(cases[i].content, f);
				fclose(f);
			}
		} else {
			unlink(path);
		}
		expect_int(ioprio_read_from_nice(path), cases[i].want,
			   cases[i].content ? quote(cases[i].content) : "no file");
		unlink(path);
		strcpy(path + strlen(path) - 6, "XXXXXX");
	}
	result("ioprio_read_from_nice reads 0 and 1, and -1 for no file");
}

static void test_read_self(void)
{
	struct ioprio_task t = { -1, 0, 0, 0 };

	if (ioprio_read_task(IOPRIO_WHO_PROCESS, 0, 1, &t))
		note("ioprio_read_task(self): %m");
	else if (ioprio_task_level(&t) < 0)
		note("value 0x%x has no level", t.ioprio);
	if (ioprio_read_task(0, 0, 1, &t) == 0)
		note("ioprio_read_task(which=0) succeeded");
	result("ioprio_read_task reads the calling process and refuses a bad 'which'");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_constants();
	test_level_value();
	test_parse_good();
	test_parse_bad();
	test_parse_uint();
	test_level_names();
	test_classic_to_level();
	test_level_to_classic();
	test_nice();
	test_format();
	test_describe();
	test_format_short();
	test_read_from_nice();
	test_read_self();
	return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
