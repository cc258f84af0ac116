// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * resolve_dmac DEVICE SGID_INDEX IPV4 - prints the MAC that
 * ibx_resolve_roce_dmac() finds for the IPv4-mapped GID of IPV4, or
 * "error <errno>" (exit 1).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/ibx_driver.h>

int main(int argc, char **argv)
{
	struct ibv_ah_attr attr = { .is_global = 1, .port_num = 1 };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	uint8_t mac[6];
	int i, ret;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEVICE SGID_INDEX IPV4\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "no device %s\n", argv[1]);
		return 2;
	}
	attr.grh.sgid_index = atoi(argv[2]);
	attr.grh.dgid.raw[10] = 0xff;
	attr.grh.dgid.raw[11] = 0xff;
	if (inet_pton(AF_INET, argv[3], &attr.grh.dgid.raw[12]) != 1)
		return 2;

	ret = ibx_resolve_roce_dmac(ctx, 1, &attr, mac);
	if (ret)
		printf("error %d\n", ret);
	else
		printf("%02x:%02x:%02x:%02x:%02x:%02x\n", mac[0], mac[1],
		       mac[2], mac[3], mac[4], mac[5]);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return ret ? 1 : 0;
}
