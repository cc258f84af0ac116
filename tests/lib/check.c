// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* check.c - see check.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

unsigned int check_count;
unsigned int check_failures;
const char *check_who;
void (*check_on_fatal)(void);
void (*check_where)(FILE *f);

void check_report(const char *func, int line, const char *fmt, ...)
{
	va_list ap;

	/* stdout first: a FAIL line must follow what the test printed. */
	fflush(stdout);
	fputs("FAIL ", stderr);
	if (check_who)
		fprintf(stderr, "(%s) ", check_who);
	if (check_where)
		check_where(stderr);
	fprintf(stderr, "%s:%d: ", func, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void check_fatal(void)
{
	if (check_on_fatal)
		check_on_fatal();
	exit(1);
}

bool check_end(const char *name, struct check_mark m, int ret)
{
	unsigned int made = check_count - m.count;
	bool clean = !ret && check_failures == m.failures;

	if (clean && !made)
		printf("FAIL %s (made no check)\n", name);
	else
		printf("%s %s (%u checks)\n", clean ? "PASS" : "FAIL", name,
		       made);
	fflush(stdout);
	return clean && made;
}

bool check_wanted(const char *name, char *const *names, int nnames,
		  bool by_default)
{
	int j;

	if (!nnames)
		return by_default;
	for (j = 0; j < nnames; j++)
		if (!strcmp(names[j], name))
			return true;
	return false;
}

int check_summary(unsigned int passed, unsigned int failed)
{
	/* Not "N passed, N failed" alone: that line is the test runner's. */
	printf("sections: %u passed, %u failed; %u checks\n", passed, failed,
	       check_count);
	return failed || !passed ? 1 : 0;
}

int check_run(const struct check_section *s, unsigned int n,
	      char *const *names, int nnames, void *arg,
	      void (*after)(void *arg))
{
	unsigned int i, passed = 0, failed = 0;
	int j;

	for (j = 0; j < nnames; j++) {
		for (i = 0; i < n && strcmp(s[i].name, names[j]); i++)
			;
		if (i == n) {
			printf("FAIL unknown section '%s'\n", names[j]);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		struct check_mark m = check_begin();

		if (!check_wanted(s[i].name, names, nnames, s[i].by_default))
			continue;
		if (check_end(s[i].name, m, s[i].fn(arg)))
			passed++;
		else
			failed++;
		if (after)
			after(arg);
	}
	return check_summary(passed, failed);
}
