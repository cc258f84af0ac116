/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * check.h - the one assertion helper of the C test programs, and the
 * runner of their sections.
 *
 * Every assertion is counted, so a run says how many it made, and a
 * section that made none fails: a test that asserts nothing is a defect.
 * The macros differ only in what a failed assertion does next:
 *
 *   CHECK(cond, fmt, ...)    return -1 from the (int) function
 *   VERIFY(cond, fmt, ...)   go on; the section fails at its end
 *   REQUIRE(cond, fmt, ...)  end the process: check_on_fatal, then exit(1)
 *   SETUP(cond, fmt, ...)    like CHECK but not counted: a step that only
 *                            prepares an assertion (open, create, post)
 *
 * A failure prints "FAIL [(who)] [where] function:line: message" on stderr.
 * FAIL_HERE(fmt, ...) reports a failure that is not an assertion.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdbool.h>
#include <stdio.h>

extern unsigned int check_count;	/* assertions evaluated */
extern unsigned int check_failures;	/* assertions that failed */
extern const char *check_who;		/* optional FAIL prefix (a role) */
extern void (*check_on_fatal)(void);	/* REQUIRE's last words, optional */
/* Optional: prints where in its run the program is, after "FAIL ". */
extern void (*check_where)(FILE *f);

void check_report(const char *func, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void check_fatal(void) __attribute__((noreturn));

#define CHECK_THEN(cond, then, ...)                                            \
	do {                                                                   \
		check_count++;                                                 \
		if (!(cond)) {                                                 \
			check_failures++;                                      \
			check_report(__func__, __LINE__, __VA_ARGS__);         \
			then;                                                  \
		}                                                              \
	} while (0)

#define CHECK(cond, ...) CHECK_THEN(cond, return -1, __VA_ARGS__)
#define VERIFY(cond, ...) CHECK_THEN(cond, (void)0, __VA_ARGS__)
#define REQUIRE(cond, ...) CHECK_THEN(cond, check_fatal(), __VA_ARGS__)
#define SETUP(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			check_report(__func__, __LINE__, __VA_ARGS__);         \
			return -1;                                             \
		}                                                              \
	} while (0)

#define FAIL_HERE(...)                                                         \
	do {                                                                   \
		check_failures++;                                              \
		check_report(__func__, __LINE__, __VA_ARGS__);                 \
	} while (0)

/*
 * Sections.  A section passes if it returned 0, no assertion failed in it
 * and it made at least one.  check_begin()/check_end() bracket one run of
 * a section in a program's own loop; check_run() is that loop for a table.
 */
struct check_mark {
	unsigned int count, failures;
};

static inline struct check_mark check_begin(void)
{
	return (struct check_mark){ check_count, check_failures };
}

/* Prints "PASS|FAIL name (N checks)"; true if section @name passed. */
bool check_end(const char *name, struct check_mark m, int ret);
/* Whether @name runs: named in @names, or by default if none is named. */
bool check_wanted(const char *name, char *const *names, int nnames,
		  bool by_default);
/* Prints the summary line; the exit status of a run (0 or 1). */
int check_summary(unsigned int passed, unsigned int failed);

struct check_section {
	const char *name;
	int (*fn)(void *arg);	/* 0, or -1 after a failed CHECK/SETUP */
	bool by_default;	/* run when no section is named */
};

/*
 * Runs the sections named in @names (the by_default ones if @nnames is 0),
 * calling @after(arg) after each if set; a name no section has fails the
 * run before any runs.  Returns the exit status.
 */
int check_run(const struct check_section *s, unsigned int n,
	      char *const *names, int nnames, void *arg,
	      void (*after)(void *arg));

#endif /* TESTS_CHECK_H */
