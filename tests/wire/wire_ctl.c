// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wire_ctl.c - the TCP control connection of the two-host wire programs
 * (wire_ctl.h).  Lines are read a byte at a time: the peer's next line
 * stays in the socket for whoever reads next.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "wire_ctl.h"

int ctl_sock = -1;
int ctl_timeout_ms = 60000;

void ctl_connect(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = host ? 0 : AI_PASSIVE},
			*res;
	int one = 1, fd, err;

	err = getaddrinfo(host, port, &hints, &res);
	if (err)
		die("getaddrinfo %s:%s: %s", host ? host : "*", port,
		    gai_strerror(err));
	fd = socket(res->ai_family, res->ai_socktype, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (host) {
		if (connect(fd, res->ai_addr, res->ai_addrlen))
			die("connect %s:%s: %s", host, port, strerror(errno));
		ctl_sock = fd;
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1))
			die("listen on port %s: %s", port, strerror(errno));
		ctl_sock = accept(fd, NULL, NULL);
		if (ctl_sock < 0)
			die("accept: %s", strerror(errno));
		close(fd);
	}
	freeaddrinfo(res);
}

void ctl_send(const char *fmt, ...)
{
	char line[256];
	ssize_t done = 0, r;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	while (done < n) {
		r = write(ctl_sock, line + done, n - done);
		if (r <= 0)
			die("control connection: write: %s", strerror(errno));
		done += r;
	}
}

void ctl_recv(char *line, size_t len)
{
	struct pollfd pfd = {.fd = ctl_sock, .events = POLLIN};
	size_t n = 0;

	while (n + 1 < len) {
		if (poll(&pfd, 1, ctl_timeout_ms) != 1)
			die("control connection: nothing from the peer in %d s",
			    ctl_timeout_ms / 1000);
		if (read(ctl_sock, line + n, 1) != 1)
			die("control connection closed by the peer");
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = 0;
	if (!strncmp(line, "ABORT", 5))
		ctl_peer_gave_up();
}

bool ctl_ready(void)
{
	struct pollfd pfd = {.fd = ctl_sock, .events = POLLIN};

	return poll(&pfd, 1, 0) == 1;
}
