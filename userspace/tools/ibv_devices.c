// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_devices - list the RDMA devices with their node GUIDs, in the same
 * layout as rdma-core's tool of the same name (scripts parse it).
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>

#include <infiniband/verbs.h>

int main(int argc, char *argv[])
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("Failed to get IB devices list");
		return 1;
	}
	printf("    %-16s\t   node GUID\n", "device");
	printf("    %-16s\t----------------\n", "------");
	for (i = 0; i < n; i++)
		printf("    %-16s\t%016" PRIx64 "\n",
		       ibv_get_device_name(list[i]),
		       be64toh(ibv_get_device_guid(list[i])));
	ibv_free_device_list(list);
	return 0;
}
