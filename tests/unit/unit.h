/* SPDX-License-Identifier: MIT */
/* A tiny unit-test harness: each suite is a static table of cases; a failed
 * CHECK ends the case and names the file, line and expression. */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <string.h>

struct unit_case {
	const char *name;
	void (*fn)(void);
};

struct unit_suite {
	const char *name;
	const struct unit_case *cases;
	unsigned count;
};

void unit_fail(const char *file, int line, const char *what);
void unit_failf(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Path of a fresh scratch directory for the running case (removed after). */
const char *unit_tmpdir(void);
/* The running case cannot run here (the kernel lacks what it compares
 * with): it prints SKIP with the reason instead of PASS. Return after it. */
void unit_skip(const char *why);
/* 1 when the kernel (or qemu-user, which has none) answers openat2(2) */
int unit_has_openat2(void);

#define UNIT_SUITE(id, ...)                                                   \
	static const struct unit_case id##_cases[] = { __VA_ARGS__ };         \
	const struct unit_suite unit_suite_##id = {                           \
		#id, id##_cases, sizeof(id##_cases) / sizeof(id##_cases[0]) }

#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c)) {                                                   \
			unit_fail(__FILE__, __LINE__, #c);                    \
			return;                                               \
		}                                                             \
	} while (0)

#define CHECK_INT(a, b)                                                       \
	do {                                                                  \
		long long a_ = (long long)(a), b_ = (long long)(b);           \
		if (a_ != b_) {                                               \
			unit_failf(__FILE__, __LINE__, "%s == %lld, want %lld", \
				   #a, a_, b_);                               \
			return;                                               \
		}                                                             \
	} while (0)

#define CHECK_STR(a, b)                                                       \
	do {                                                                  \
		const char *a_ = (a), *b_ = (b);                              \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                      \
			unit_failf(__FILE__, __LINE__, "%s == \"%s\", want \"%s\"", \
				   #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
			return;                                               \
		}                                                             \
	} while (0)

#endif
