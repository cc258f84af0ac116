// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * async_events DEVICE NETDEV - takes NETDEV down and up again and expects
 * IBV_EVENT_PORT_ERR then IBV_EVENT_PORT_ACTIVE on port 1 through
 * ibv_get_async_event(), each within 10 s.  Exit 0 on success.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static int expect(struct ibv_context *ctx, enum ibv_event_type type)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	for (;;) {
		if (poll(&pfd, 1, 10000) != 1) {
			fprintf(stderr, "no async event (want %s)\n",
				ibv_event_type_str(type));
			return 1;
		}
		if (ibv_get_async_event(ctx, &ev)) {
			perror("ibv_get_async_event");
			return 1;
		}
		printf("event %s port %d\n", ibv_event_type_str(ev.event_type),
		       ev.element.port_num);
		ibv_ack_async_event(&ev);
		/* A GID change may come along with the link change. */
		if (ev.event_type == IBV_EVENT_GID_CHANGE)
			continue;
		if (ev.event_type != type || ev.element.port_num != 1) {
			fprintf(stderr, "unexpected event\n");
			return 1;
		}
		return 0;
	}
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	char cmd[128];
	int i, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE NETDEV\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 2;
	}

	snprintf(cmd, sizeof(cmd), "ip link set %s down", argv[2]);
	ret = system(cmd) ? 1 : expect(ctx, IBV_EVENT_PORT_ERR);
	snprintf(cmd, sizeof(cmd), "ip link set %s up", argv[2]);
	if (!ret)
		ret = system(cmd) ? 1 : expect(ctx, IBV_EVENT_PORT_ACTIVE);
	else
		(void)!system(cmd);
	ibv_close_device(ctx);
	printf("%s\n", ret ? "FAILED" : "PASSED");
	return ret;
}
