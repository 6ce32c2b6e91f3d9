// SPDX-License-Identifier: MIT
/* One-component glob matching for keep lists, without recursion depth
 * beyond one level of '*' backtracking. */
#include "lib/glob.h"

#include <stddef.h>

/* Matches the class at *pp (after '[') against c; advances *pp past ']'.
 * Returns 1/0, or -1 when the class is not closed. */
static int match_class(const char **pp, unsigned char c)
{
	const char *p = *pp;
	int negate = 0, hit = 0;

	if (*p == '!' || *p == '^') {
		negate = 1;
		p++;
	}
	if (*p == ']') { /* a leading ']' is literal */
		hit = c == ']';
		p++;
	}
	while (*p && *p != ']') {
		unsigned char lo = (unsigned char)*p, hi = lo;

		if (lo == '\\' && p[1])
			lo = hi = (unsigned char)*++p;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = (unsigned char)p[2];
			if (hi == '\\' && p[3])
				hi = (unsigned char)p[3], p++;
			p += 2;
		}
		if (c >= lo && c <= hi)
			hit = 1;
		p++;
	}
	if (*p != ']')
		return -1;
	*pp = p + 1;
	return hit != negate;
}

int glob_match(const char *pattern, const char *name)
{
	const char *p = pattern, *n = name;
	const char *star_p = NULL, *star_n = NULL;

	if (*n == '.' && *p != '.' && !(p[0] == '\\' && p[1] == '.'))
		return 0; /* FNM_PERIOD: a hidden name needs a literal dot */
	while (*n) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_n = n;
			continue;
		}
		if (*p == '?') {
			p++;
			n++;
			continue;
		}
		if (*p == '[') {
			const char *q = p + 1;
			int r = match_class(&q, (unsigned char)*n);

			if (r < 0)
				return 0;
			if (r) {
				p = q;
				n++;
				continue;
			}
		} else {
			const char *lit = p;

			if (*lit == '\\' && lit[1])
				lit++;
			if (*lit && *lit == *n) {
				p = lit + 1;
				n++;
				continue;
			}
		}
		/* mismatch: let the last '*' swallow one more byte */
		if (!star_p)
			return 0;
		p = star_p;
		n = ++star_n;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}
