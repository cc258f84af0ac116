// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * init.c - one-time initialisation and device discovery.
 *
 * Devices are found through sysfs only: /sys/class/infiniband_verbs holds
 * the ABI version and one uverbsN directory per device (ibdev, dev,
 * abi_version); /sys/class/infiniband/<ibdev> the node attributes, and
 * only for the devices of this network namespace.  We
 * never open NETLINK_RDMA, because that would autoload the in-tree
 * ib_core whose sysfs classes collide with ours.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <rdma/ib_user_verbs.h>

#include "ibverbs.h"

#define SYSFS_VERBS "/sys/class/infiniband_verbs"
#define SYSFS_IBDEV "/sys/class/infiniband"

int ibx_abi_version;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_error;

static pthread_mutex_t dev_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ibx_device *all_devices;

/*
 * Memory registration pins pages; with the default 64 KiB limit of
 * unprivileged processes most applications fail, so say so early.
 */
static void check_memlock_limit(void)
{
	struct rlimit rl;

	if (!geteuid())
		return;
	if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
		ibx_warn("Warning: getrlimit(RLIMIT_MEMLOCK) failed.");
		return;
	}
	if (rl.rlim_cur <= 32768)
		ibx_warn("Warning: RLIMIT_MEMLOCK is %llu bytes.\n"
			 "    This will severely limit memory registrations.\n",
			 (unsigned long long)rl.rlim_cur);
}

static void do_init(void)
{
	char value[16];

	if (ibx_read_file(SYSFS_VERBS, "abi_version", value,
			  sizeof(value)) < 0) {
		ibx_warn("Fatal: couldn't read uverbs ABI version.\n");
		init_error = ENOSYS;
		return;
	}
	ibx_abi_version = strtol(value, NULL, 10);
	if (ibx_abi_version < IBX_MIN_ABI_VERSION ||
	    ibx_abi_version > IBX_MAX_ABI_VERSION) {
		ibx_warn("Fatal: kernel ABI version %d doesn't match library version %d.\n",
			 ibx_abi_version, IB_USER_VERBS_ABI_VERSION);
		init_error = ENOSYS;
		return;
	}

	check_memlock_limit();

	if (getenv("RDMAV_FORK_SAFE") || getenv("IBV_FORK_SAFE"))
		if (ibv_fork_init())
			ibx_warn("Warning: fork()-safety requested but init failed\n");

	ibx_load_providers();
}

int ibx_init_once(void)
{
	pthread_once(&init_once, do_init);
	return init_error;
}

static enum ibv_transport_type transport_of(enum ibv_node_type type)
{
	switch (type) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
		return IBV_TRANSPORT_IB;
	case IBV_NODE_RNIC:
		return IBV_TRANSPORT_IWARP;
	case IBV_NODE_USNIC:
		return IBV_TRANSPORT_USNIC;
	case IBV_NODE_USNIC_UDP:
		return IBV_TRANSPORT_USNIC_UDP;
	case IBV_NODE_UNSPECIFIED:
		return IBV_TRANSPORT_UNSPECIFIED;
	default:
		return IBV_TRANSPORT_UNKNOWN;
	}
}

/* "xxxx:xxxx:xxxx:xxxx" -> network-order GUID */
static __be64 parse_guid(const char *s)
{
	unsigned int part[4];
	uint64_t guid;

	if (sscanf(s, "%x:%x:%x:%x", &part[0], &part[1], &part[2],
		   &part[3]) != 4)
		return 0;
	guid = ((uint64_t)part[0] << 48) | ((uint64_t)part[1] << 32) |
	       ((uint64_t)part[2] << 16) | part[3];
	return htobe64(guid);
}

static struct ibx_device *find_known(const char *dev_name, const char *ibdev,
				     dev_t devnum)
{
	struct ibx_device *d;

	for (d = all_devices; d; d = d->next)
		if (!strcmp(d->dev.dev_name, dev_name) &&
		    !strcmp(d->dev.name, ibdev) && d->devnum == devnum)
			return d;
	return NULL;
}

/* Reads uverbsN; returns a device (new or already known) or NULL. */
static struct ibx_device *probe_uverbs(const char *dev_name)
{
	char path[IBV_SYSFS_PATH_MAX], ibdev[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char value[64];
	const struct ibx_provider *prov;
	unsigned int major, minor;
	struct ibx_device *d;
	dev_t devnum;

	snprintf(path, sizeof(path), "%s/%s", SYSFS_VERBS, dev_name);
	if (ibx_read_file(path, "ibdev", ibdev, sizeof(ibdev)) <= 0)
		return NULL;
	/*
	 * infiniband_verbs lists every device; /sys/class/infiniband only
	 * those of the network namespace that mounted sysfs (in the kernel's
	 * exclusive netns mode another namespace's device is not ours to
	 * open), as rdma-core's netlink listing shows them.
	 */
	snprintf(ibdev_path, sizeof(ibdev_path), "%s/%s", SYSFS_IBDEV, ibdev);
	if (access(ibdev_path, F_OK))
		return NULL;
	if (ibx_read_file(path, "dev", value, sizeof(value)) <= 0 ||
	    sscanf(value, "%u:%u", &major, &minor) != 2)
		return NULL;
	devnum = makedev(major, minor);

	d = find_known(dev_name, ibdev, devnum);
	if (d)
		return d;

	prov = ibx_match_provider(ibdev);
	if (!prov) {
		if (getenv("IBV_SHOW_WARNINGS"))
			ibx_warn("Warning: no userspace device-specific driver found for %s\n",
				 path);
		return NULL;
	}

	/* Debian providers read a pointer at offset 664: allocate past it. */
	d = calloc(1, sizeof(*d) < 672 ? 672 : sizeof(*d));
	if (!d)
		return NULL;
	d->provider = prov;
	d->devnum = devnum;
	/*
	 * rdma-core learns the kernel's device index over netlink, which
	 * ibx_uverbs does not serve; it names uverbsN after that index (one
	 * IDA for both), so N is the index.
	 */
	if (sscanf(dev_name, "uverbs%d", &d->index) != 1 || d->index < 0)
		d->index = -1;
	snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "%s", dev_name);
	snprintf(d->dev.name, sizeof(d->dev.name), "%s", ibdev);
	snprintf(d->dev.dev_path, sizeof(d->dev.dev_path), "%s", path);
	snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path), "%s/%s",
		 SYSFS_IBDEV, ibdev);

	d->abi_version = ibx_abi_version;
	if (ibx_read_file(path, "abi_version", value, sizeof(value)) > 0)
		d->abi_version = strtol(value, NULL, 10);

	d->dev.node_type = IBV_NODE_UNKNOWN;
	if (ibx_read_file(d->dev.ibdev_path, "node_type", value,
			  sizeof(value)) > 0)
		d->dev.node_type = strtol(value, NULL, 10);
	d->dev.transport_type = transport_of(d->dev.node_type);

	if (ibx_read_file(d->dev.ibdev_path, "node_guid", value,
			  sizeof(value)) > 0)
		d->node_guid = parse_guid(value);

	d->next = all_devices;
	all_devices = d;
	return d;
}

static int cmp_dev_name(const void *a, const void *b)
{
	const struct ibv_device *x = *(struct ibv_device * const *)a;
	const struct ibv_device *y = *(struct ibv_device * const *)b;
	size_t lx = strlen(x->dev_name), ly = strlen(y->dev_name);

	/* uverbs2 before uverbs10 */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->dev_name, y->dev_name);
}

__ibx_export
struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = NULL;
	struct dirent *ent;
	int n = 0, cap = 0, ret;
	DIR *dir;

	if (num_devices)
		*num_devices = 0;

	ret = ibx_init_once();
	if (ret) {
		errno = ret;
		return NULL;
	}

	pthread_mutex_lock(&dev_list_lock);
	dir = opendir(SYSFS_VERBS);
	if (!dir) {
		pthread_mutex_unlock(&dev_list_lock);
		errno = ENOSYS;
		return NULL;
	}
	while ((ent = readdir(dir))) {
		struct ibx_device *d;

		if (strncmp(ent->d_name, "uverbs", 6))
			continue;
		d = probe_uverbs(ent->d_name);
		if (!d)
			continue;
		if (n + 2 > cap) {
			struct ibv_device **bigger;

			cap = cap ? cap * 2 : 8;
			bigger = realloc(list, cap * sizeof(*list));
			if (!bigger)
				goto nomem;
			list = bigger;
		}
		d->refcount++;
		list[n++] = &d->dev;
	}
	closedir(dir);
	pthread_mutex_unlock(&dev_list_lock);

	if (!list) {
		list = calloc(1, sizeof(*list));
		if (!list) {
			errno = ENOMEM;
			return NULL;
		}
	}
	qsort(list, n, sizeof(*list), cmp_dev_name);
	list[n] = NULL;
	if (num_devices)
		*num_devices = n;
	return list;

nomem:
	closedir(dir);
	while (n--)
		to_ibx_dev(list[n])->refcount--;
	pthread_mutex_unlock(&dev_list_lock);
	free(list);
	errno = ENOMEM;
	return NULL;
}

__ibx_export
void ibv_free_device_list(struct ibv_device **list)
{
	int i;

	if (!list)
		return;
	pthread_mutex_lock(&dev_list_lock);
	for (i = 0; list[i]; i++)
		to_ibx_dev(list[i])->refcount--;
	pthread_mutex_unlock(&dev_list_lock);
	free(list);
}

/*
 * Device structures stay allocated for the life of the process (they are
 * few and applications keep pointers to them past ibv_free_device_list()
 * while a context is open); the counts only track use.
 */
void ibx_device_get(struct ibx_device *dev)
{
	pthread_mutex_lock(&dev_list_lock);
	dev->refcount++;
	pthread_mutex_unlock(&dev_list_lock);
}

void ibx_device_put(struct ibx_device *dev)
{
	pthread_mutex_lock(&dev_list_lock);
	dev->refcount--;
	pthread_mutex_unlock(&dev_list_lock);
}

__ibx_export
const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

__ibx_export
__be64 ibv_get_device_guid(struct ibv_device *device)
{
	return to_ibx_dev(device)->node_guid;
}

__ibx_export
int ibv_get_device_index(struct ibv_device *device)
{
	return to_ibx_dev(device)->index;
}
