/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wire_ctl.h - the TCP control connection of the two-host wire programs
 * (wire_data, ctl_busy): one text line per message, and "ABORT" from a
 * side that gave up.  The program provides die() and ctl_peer_gave_up().
 */
#ifndef WIRE_CTL_H
#define WIRE_CTL_H

#include <stdbool.h>
#include <stddef.h>

extern int ctl_sock;		/* the connection, once ctl_connect() made it */
extern int ctl_timeout_ms;	/* longest wait for the peer's next line */

/* Connects to HOST:PORT, or with HOST NULL accepts one peer on PORT. */
void ctl_connect(const char *host, const char *port);
void ctl_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reads a line; the peer's "ABORT" calls ctl_peer_gave_up(). */
void ctl_recv(char *line, size_t len);
/* Whether a line from the peer waits (without blocking). */
bool ctl_ready(void);

/* The program's: a set-up failure (exit 2), and the peer's ABORT (exit 1). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void ctl_peer_gave_up(void) __attribute__((noreturn));

#endif
