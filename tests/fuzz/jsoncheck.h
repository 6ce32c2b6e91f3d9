/* SPDX-License-Identifier: MIT */
/* A strict JSON checker for the status fuzzer and unit tests, written apart
 * from the code it checks: RFC 8259's grammar; strings of valid UTF-8 (no
 * overlong form, surrogate or code point past U+10FFFF, raw or escaped, no
 * raw control byte); no object that has a key twice. The top-level object's
 * string fields, and the items of its arrays of strings, go to a callback,
 * decoded. */
#ifndef JSONCHECK_H
#define JSONCHECK_H

#include <stddef.h>
#include <string.h>

#define JC_DEPTH 8
#define JC_KEYS 512

typedef void jc_field_fn(void *ctx, const char *key, size_t klen, const char *val, size_t vlen);

struct jc {
	const unsigned char *s;
	size_t n, i;
	char arena[1 << 17]; /* the decoded strings of one check */
	size_t used;
	jc_field_fn *fn;
	void *ctx;
};

static int jc_value(struct jc *j, int depth, const char *key, size_t klen);

static void jc_ws(struct jc *j)
{
	while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' ||
			       j->s[j->i] == '\r'))
		j->i++;
}

static int jc_lit(struct jc *j, const char *w)
{
	size_t k = strlen(w);

	if (j->n - j->i < k || memcmp(j->s + j->i, w, k) != 0)
		return -1;
	j->i += k;
	return 0;
}

static int jc_put(struct jc *j, unsigned long cp)
{
	unsigned char b[4];
	size_t k;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	if (sizeof(j->arena) - j->used < k)
		return -1;
	memcpy(j->arena + j->used, b, k);
	j->used += k;
	return 0;
}

/* One code point of raw UTF-8 at s (n bytes): its length, 0 when invalid. */
static size_t jc_utf8(const unsigned char *s, size_t n, unsigned long *cp)
{
	size_t k;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0)
		k = 2, *cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		k = 3, *cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		k = 4, *cp = s[0] & 0x07;
	else
		return 0;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if ((k == 2 && *cp < 0x80) || (k == 3 && *cp < 0x800) || (k == 4 && *cp < 0x10000) ||
	    *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return k;
}

static int jc_hex4(struct jc *j, unsigned long *v)
{
	*v = 0;
	if (j->n - j->i < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		unsigned char c = j->s[j->i++];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*v |= (c | 0x20) - 'a' + 10;
		else
			return -1;
	}
	return 0;
}

/* A string at j->i, decoded into the arena at *off, *len bytes. */
static int jc_string(struct jc *j, size_t *off, size_t *len)
{
	*off = j->used;
	if (j->i >= j->n || j->s[j->i] != '"')
		return -1;
	j->i++;
	for (;;) {
		unsigned long cp, lo;
		unsigned char c;
		size_t k;

		if (j->i >= j->n)
			return -1;
		c = j->s[j->i];
		if (c == '"') {
			j->i++;
			*len = j->used - *off;
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c != '\\') {
			k = jc_utf8(j->s + j->i, j->n - j->i, &cp);
			if (!k || jc_put(j, cp) < 0)
				return -1;
			j->i += k;
			continue;
		}
		if (++j->i >= j->n)
			return -1;
		c = j->s[j->i++];
		switch (c) {
		case '"': case '\\': case '/': cp = c; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (jc_hex4(j, &cp) < 0 || (cp >= 0xdc00 && cp <= 0xdfff))
				return -1;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (jc_lit(j, "\\u") < 0 || jc_hex4(j, &lo) < 0 || lo < 0xdc00 ||
				    lo > 0xdfff)
					return -1;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			break;
		default:
			return -1;
		}
		if (jc_put(j, cp) < 0)
			return -1;
	}
}

static int jc_number(struct jc *j)
{
	size_t start;

	if (j->i < j->n && j->s[j->i] == '-')
		j->i++;
	if (j->i < j->n && j->s[j->i] == '0') {
		j->i++;
	} else {
		start = j->i;
		while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
			j->i++;
		if (j->i == start || j->s[start] == '0')
			return -1;
	}
	if (j->i < j->n && j->s[j->i] == '.') {
		start = ++j->i;
		while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
			j->i++;
		if (j->i == start)
			return -1;
	}
	if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
		j->i++;
		if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
			j->i++;
		start = j->i;
		while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
			j->i++;
		if (j->i == start)
			return -1;
	}
	return 0;
}

static int jc_object(struct jc *j, int depth)
{
	size_t off[JC_KEYS], len[JC_KEYS], nkeys = 0;

	j->i++; /* '{' */
	jc_ws(j);
	if (j->i < j->n && j->s[j->i] == '}') {
		j->i++;
		return 0;
	}
	for (;;) {
		if (nkeys == JC_KEYS || jc_string(j, &off[nkeys], &len[nkeys]) < 0)
			return -1;
		for (size_t k = 0; k < nkeys; k++)
			if (len[k] == len[nkeys] &&
			    memcmp(j->arena + off[k], j->arena + off[nkeys], len[k]) == 0)
				return -1; /* a key twice */
		nkeys++;
		jc_ws(j);
		if (jc_lit(j, ":") < 0)
			return -1;
		jc_ws(j);
		if (jc_value(j, depth + 1, depth == 0 ? j->arena + off[nkeys - 1] : NULL,
			     len[nkeys - 1]) < 0)
			return -1;
		jc_ws(j);
		if (jc_lit(j, "}") == 0)
			return 0;
		if (jc_lit(j, ",") < 0)
			return -1;
		jc_ws(j);
	}
}

/* key: the top-level field this value belongs to, else NULL */
static int jc_array(struct jc *j, int depth, const char *key, size_t klen)
{
	j->i++; /* '[' */
	jc_ws(j);
	if (jc_lit(j, "]") == 0)
		return 0;
	for (;;) {
		/* an array's items are reported under its key */
		if (jc_value(j, depth, key, klen) < 0)
			return -1;
		jc_ws(j);
		if (jc_lit(j, "]") == 0)
			return 0;
		if (jc_lit(j, ",") < 0)
			return -1;
		jc_ws(j);
	}
}

static int jc_value(struct jc *j, int depth, const char *key, size_t klen)
{
	size_t off, len;

	if (depth > JC_DEPTH || j->i >= j->n)
		return -1;
	switch (j->s[j->i]) {
	case '{':
		return jc_object(j, depth);
	case '[':
		return jc_array(j, depth + 1, depth == 1 ? key : NULL, klen);
	case '"':
		if (jc_string(j, &off, &len) < 0)
			return -1;
		if (key && j->fn)
			j->fn(j->ctx, key, klen, j->arena + off, len);
		return 0;
	case 't':
		return jc_lit(j, "true");
	case 'f':
		return jc_lit(j, "false");
	case 'n':
		return jc_lit(j, "null");
	default:
		return jc_number(j);
	}
}

/* 0 when s (n bytes) is one JSON object and nothing else but white space;
 * fn (may be NULL) sees its string fields in order. */
static inline int jc_check(struct jc *j, const char *s, size_t n, jc_field_fn *fn, void *ctx)
{
	j->s = (const unsigned char *)s;
	j->n = n;
	j->i = 0;
	j->used = 0;
	j->fn = fn;
	j->ctx = ctx;
	jc_ws(j);
	if (j->i >= j->n || j->s[j->i] != '{' || jc_value(j, 0, NULL, 0) < 0)
		return -1;
	jc_ws(j);
	return j->i == j->n ? 0 : -1;
}

#endif
