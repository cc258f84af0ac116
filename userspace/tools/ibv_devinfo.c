// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_devinfo - print the attributes of RDMA devices and their ports.
 *
 * The output is the one of rdma-core's ibv_devinfo line for line (labels,
 * tabs, number formats, the order of sections), because scripts and test
 * suites parse it; the implementation is table driven.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

struct flag_name {
	uint64_t flag;
	const char *name;
};

#define FLAG(prefix, x) { prefix##x, #x }

static const struct flag_name dev_cap_names[] = {
	FLAG(IBV_DEVICE_, RESIZE_MAX_WR),
	FLAG(IBV_DEVICE_, BAD_PKEY_CNTR),
	FLAG(IBV_DEVICE_, BAD_QKEY_CNTR),
	FLAG(IBV_DEVICE_, RAW_MULTI),
	FLAG(IBV_DEVICE_, AUTO_PATH_MIG),
	FLAG(IBV_DEVICE_, CHANGE_PHY_PORT),
	FLAG(IBV_DEVICE_, UD_AV_PORT_ENFORCE),
	FLAG(IBV_DEVICE_, CURR_QP_STATE_MOD),
	FLAG(IBV_DEVICE_, SHUTDOWN_PORT),
	FLAG(IBV_DEVICE_, INIT_TYPE),
	FLAG(IBV_DEVICE_, PORT_ACTIVE_EVENT),
	FLAG(IBV_DEVICE_, SYS_IMAGE_GUID),
	FLAG(IBV_DEVICE_, RC_RNR_NAK_GEN),
	FLAG(IBV_DEVICE_, SRQ_RESIZE),
	FLAG(IBV_DEVICE_, N_NOTIFY_CQ),
	FLAG(IBV_DEVICE_, MEM_WINDOW),
	FLAG(IBV_DEVICE_, UD_IP_CSUM),
	FLAG(IBV_DEVICE_, XRC),
	FLAG(IBV_DEVICE_, MEM_MGT_EXTENSIONS),
	FLAG(IBV_DEVICE_, MEM_WINDOW_TYPE_2A),
	FLAG(IBV_DEVICE_, MEM_WINDOW_TYPE_2B),
	FLAG(IBV_DEVICE_, RC_IP_CSUM),
	FLAG(IBV_DEVICE_, RAW_IP_CSUM),
	FLAG(IBV_DEVICE_, MANAGED_FLOW_STEERING),
	{}
};

static const struct flag_name dev_cap_ex_names[] = {
	FLAG(IBV_DEVICE_, RAW_SCATTER_FCS),
	FLAG(IBV_DEVICE_, PCI_WRITE_END_PADDING),
	{}
};

static const struct flag_name odp_general_names[] = {
	FLAG(IBV_, ODP_SUPPORT),
	FLAG(IBV_, ODP_SUPPORT_IMPLICIT),
	{}
};

static const struct flag_name odp_transport_names[] = {
	{ IBV_ODP_SUPPORT_SEND, "SUPPORT_SEND" },
	{ IBV_ODP_SUPPORT_RECV, "SUPPORT_RECV" },
	{ IBV_ODP_SUPPORT_WRITE, "SUPPORT_WRITE" },
	{ IBV_ODP_SUPPORT_READ, "SUPPORT_READ" },
	{ IBV_ODP_SUPPORT_ATOMIC, "SUPPORT_ATOMIC" },
	{ IBV_ODP_SUPPORT_SRQ_RECV, "SUPPORT_SRQ" },
	{}
};

static const struct flag_name qpt_names[] = {
	{ 1 << IBV_QPT_RAW_PACKET, "SUPPORT_RAW_PACKET" },
	{ 1 << IBV_QPT_UD, "SUPPORT_UD" },
	{}
};

static const struct flag_name raw_packet_names[] = {
	{ IBV_RAW_PACKET_CAP_CVLAN_STRIPPING, "C-VLAN stripping offload" },
	{ IBV_RAW_PACKET_CAP_SCATTER_FCS, "Scatter FCS offload" },
	{ IBV_RAW_PACKET_CAP_IP_CSUM, "IP csum offload" },
	{ IBV_RAW_PACKET_CAP_DELAY_DROP, "Delay drop" },
	{}
};

/* One line per known flag, then the unknown rest (if @unknown_fmt). */
static void print_flags(uint64_t flags, const struct flag_name *names,
			const char *unknown_fmt)
{
	uint64_t known = 0;

	for (; names->name; names++) {
		known |= names->flag;
		if (flags & names->flag)
			printf("\t\t\t\t\t%s\n", names->name);
	}
	if (unknown_fmt && (flags & ~known))
		printf(unknown_fmt, flags & ~known);
}

#define UNKNOWN32 "\t\t\t\t\tUnknown flags: 0x%" PRIX64 "\n"

/* Names indexed by value; NULL entries and values past the end are invalid. */
static const char *lookup(const char *const *names, size_t n, unsigned int v,
			  const char *invalid)
{
	return v < n && names[v] ? names[v] : invalid;
}

#define LOOKUP(tbl, v, invalid) lookup(tbl, sizeof(tbl) / sizeof(tbl[0]), v, invalid)

static const char *const transport_names[] = {
	[IBV_TRANSPORT_IB] = "InfiniBand",
	[IBV_TRANSPORT_IWARP] = "iWARP",
	[IBV_TRANSPORT_USNIC] = "usNIC",
	[IBV_TRANSPORT_USNIC_UDP] = "usNIC UDP",
	[IBV_TRANSPORT_UNSPECIFIED] = "unspecified",
};

static const char *const atomic_names[] = {
	[IBV_ATOMIC_NONE] = "ATOMIC_NONE",
	[IBV_ATOMIC_HCA] = "ATOMIC_HCA",
	[IBV_ATOMIC_GLOB] = "ATOMIC_GLOB",
};

static const char *const port_state_names[] = {
	[IBV_PORT_DOWN] = "PORT_DOWN",
	[IBV_PORT_INIT] = "PORT_INIT",
	[IBV_PORT_ARMED] = "PORT_ARMED",
	[IBV_PORT_ACTIVE] = "PORT_ACTIVE",
};

static const char *const mtu_names[] = {
	[IBV_MTU_256] = "256", [IBV_MTU_512] = "512", [IBV_MTU_1024] = "1024",
	[IBV_MTU_2048] = "2048", [IBV_MTU_4096] = "4096",
};

static const char *const link_layer_names[] = {
	[IBV_LINK_LAYER_UNSPECIFIED] = "Unspecified",
	[IBV_LINK_LAYER_INFINIBAND] = "InfiniBand",
	[IBV_LINK_LAYER_ETHERNET] = "Ethernet",
};

/* IBA 14.2.5.6 PortInfo: VLCap, LinkWidthActive, LinkSpeedActive. */
static const char *const vl_names[] = {
	[1] = "1", [2] = "2", [3] = "4", [4] = "8", [5] = "15",
};

static const char *const width_names[] = {
	[1] = "1", [2] = "4", [4] = "8", [8] = "12", [16] = "2",
};

static const char *const speed_names[] = {
	[1] = "2.5 Gbps", [2] = "5.0 Gbps", [4] = "10.0 Gbps",
	[8] = "10.0 Gbps", [16] = "14.0 Gbps", [32] = "25.0 Gbps",
	[64] = "50.0 Gbps", [128] = "100.0 Gbps",
};

static const char *const phys_state_names[] = {
	[1] = "SLEEP", [2] = "POLLING", [3] = "DISABLED",
	[4] = "PORT_CONFIGURATION TRAINNING", [5] = "LINK_UP",
	[6] = "LINK_ERROR_RECOVERY", [7] = "PHY TEST",
};

/* Reads <ibdev_path>/<file> without its newline; length or -1. */
static int read_sysfs(struct ibv_device *dev, const char *file, char *buf,
		      size_t size)
{
	char path[IBV_SYSFS_PATH_MAX + 64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dev->ibdev_path, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	if (n && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return n;
}

static const char *guid_str(__be64 guid_be, char *buf)
{
	uint64_t guid = be64toh(guid_be);

	sprintf(buf, "%04x:%04x:%04x:%04x", (unsigned int)(guid >> 48) & 0xffff,
		(unsigned int)(guid >> 32) & 0xffff,
		(unsigned int)(guid >> 16) & 0xffff, (unsigned int)guid & 0xffff);
	return buf;
}

static void print_qpts(const char *indent, uint32_t qpts)
{
	printf("%ssupported_qp:\n", indent);
	print_flags(qpts, qpt_names, UNKNOWN32);
}

static void print_odp(const struct ibv_device_attr_ex *a)
{
	const struct ibv_odp_caps *odp = &a->odp_caps;
	const struct {
		const char *label;
		uint32_t caps;
	} per_transport[] = {
		{ "rc", odp->per_transport_caps.rc_odp_caps },
		{ "uc", odp->per_transport_caps.uc_odp_caps },
		{ "ud", odp->per_transport_caps.ud_odp_caps },
		{ "xrc", a->xrc_odp_caps },
	};
	size_t i;

	printf("\tgeneral_odp_caps:\n");
	print_flags(odp->general_caps, odp_general_names, UNKNOWN32);
	for (i = 0; i < sizeof(per_transport) / sizeof(per_transport[0]); i++) {
		printf("\t%s_odp_caps:\n", per_transport[i].label);
		if (!per_transport[i].caps)
			printf("\t\t\t\t\tNO SUPPORT\n");
		else
			print_flags(per_transport[i].caps, odp_transport_names,
				    UNKNOWN32);
	}
}

static void print_device_verbose(struct ibv_context *ctx,
				 const struct ibv_device_attr_ex *a)
{
	const struct ibv_device_attr *d = &a->orig_attr;

	printf("\tmax_mr_size:\t\t\t0x%llx\n", (unsigned long long)d->max_mr_size);
	printf("\tpage_size_cap:\t\t\t0x%llx\n",
	       (unsigned long long)d->page_size_cap);
	printf("\tmax_qp:\t\t\t\t%d\n", d->max_qp);
	printf("\tmax_qp_wr:\t\t\t%d\n", d->max_qp_wr);
	printf("\tdevice_cap_flags:\t\t0x%08x\n", d->device_cap_flags);
	print_flags(d->device_cap_flags, dev_cap_names, UNKNOWN32);
	printf("\tmax_sge:\t\t\t%d\n", d->max_sge);
	printf("\tmax_sge_rd:\t\t\t%d\n", d->max_sge_rd);
	printf("\tmax_cq:\t\t\t\t%d\n", d->max_cq);
	printf("\tmax_cqe:\t\t\t%d\n", d->max_cqe);
	printf("\tmax_mr:\t\t\t\t%d\n", d->max_mr);
	printf("\tmax_pd:\t\t\t\t%d\n", d->max_pd);
	printf("\tmax_qp_rd_atom:\t\t\t%d\n", d->max_qp_rd_atom);
	printf("\tmax_ee_rd_atom:\t\t\t%d\n", d->max_ee_rd_atom);
	printf("\tmax_res_rd_atom:\t\t%d\n", d->max_res_rd_atom);
	printf("\tmax_qp_init_rd_atom:\t\t%d\n", d->max_qp_init_rd_atom);
	printf("\tmax_ee_init_rd_atom:\t\t%d\n", d->max_ee_init_rd_atom);
	printf("\tatomic_cap:\t\t\t%s (%d)\n",
	       LOOKUP(atomic_names, d->atomic_cap, "invalid atomic capability"),
	       d->atomic_cap);
	printf("\tmax_ee:\t\t\t\t%d\n", d->max_ee);
	printf("\tmax_rdd:\t\t\t%d\n", d->max_rdd);
	printf("\tmax_mw:\t\t\t\t%d\n", d->max_mw);
	printf("\tmax_raw_ipv6_qp:\t\t%d\n", d->max_raw_ipv6_qp);
	printf("\tmax_raw_ethy_qp:\t\t%d\n", d->max_raw_ethy_qp);
	printf("\tmax_mcast_grp:\t\t\t%d\n", d->max_mcast_grp);
	printf("\tmax_mcast_qp_attach:\t\t%d\n", d->max_mcast_qp_attach);
	printf("\tmax_total_mcast_qp_attach:\t%d\n",
	       d->max_total_mcast_qp_attach);
	printf("\tmax_ah:\t\t\t\t%d\n", d->max_ah);
	printf("\tmax_fmr:\t\t\t%d\n", d->max_fmr);
	if (d->max_fmr)
		printf("\tmax_map_per_fmr:\t\t%d\n", d->max_map_per_fmr);
	printf("\tmax_srq:\t\t\t%d\n", d->max_srq);
	if (d->max_srq) {
		printf("\tmax_srq_wr:\t\t\t%d\n", d->max_srq_wr);
		printf("\tmax_srq_sge:\t\t\t%d\n", d->max_srq_sge);
	}
	printf("\tmax_pkeys:\t\t\t%d\n", d->max_pkeys);
	printf("\tlocal_ca_ack_delay:\t\t%d\n", d->local_ca_ack_delay);

	print_odp(a);
	if (a->completion_timestamp_mask)
		printf("\tcompletion timestamp_mask:\t\t\t0x%016" PRIx64 "\n",
		       a->completion_timestamp_mask);
	else
		printf("\tcompletion_timestamp_mask not supported\n");
	if (a->hca_core_clock)
		printf("\thca_core_clock:\t\t\t%" PRIu64 "kHZ\n",
		       a->hca_core_clock);
	else
		printf("\tcore clock not supported\n");
	if (a->raw_packet_caps) {
		printf("\traw packet caps:\n");
		print_flags(a->raw_packet_caps, raw_packet_names, NULL);
	}

	printf("\tdevice_cap_flags_ex:\t\t0x%" PRIX64 "\n",
	       a->device_cap_flags_ex);
	/* The low half repeats device_cap_flags, printed above. */
	print_flags(a->device_cap_flags_ex & 0xffffffff00000000ULL,
		    dev_cap_ex_names, UNKNOWN32);

	printf("\ttso_caps:\n");
	printf("\t\tmax_tso:\t\t\t%d\n", a->tso_caps.max_tso);
	if (a->tso_caps.max_tso)
		print_qpts("\t\t", a->tso_caps.supported_qpts);

	printf("\trss_caps:\n");
	printf("\t\tmax_rwq_indirection_tables:\t\t\t%u\n",
	       a->rss_caps.max_rwq_indirection_tables);
	printf("\t\tmax_rwq_indirection_table_size:\t\t\t%u\n",
	       a->rss_caps.max_rwq_indirection_table_size);
	printf("\t\trx_hash_function:\t\t\t\t0x%x\n",
	       a->rss_caps.rx_hash_function);
	printf("\t\trx_hash_fields_mask:\t\t\t\t0x%" PRIX64 "\n",
	       a->rss_caps.rx_hash_fields_mask);
	if (a->rss_caps.supported_qpts)
		print_qpts("\t\t", a->rss_caps.supported_qpts);

	printf("\tmax_wq_type_rq:\t\t\t%u\n", a->max_wq_type_rq);
	printf("\tpacket_pacing_caps:\n");
	printf("\t\tqp_rate_limit_min:\t%ukbps\n",
	       a->packet_pacing_caps.qp_rate_limit_min);
	printf("\t\tqp_rate_limit_max:\t%ukbps\n",
	       a->packet_pacing_caps.qp_rate_limit_max);
	if (a->packet_pacing_caps.qp_rate_limit_max)
		print_qpts("\t\t", a->packet_pacing_caps.supported_qpts);

	if (a->tm_caps.max_num_tags) {
		printf("\tmax_rndv_hdr_size:\t\t%u\n",
		       a->tm_caps.max_rndv_hdr_size);
		printf("\tmax_num_tags:\t\t\t%u\n", a->tm_caps.max_num_tags);
		printf("\tmax_ops:\t\t\t%u\n", a->tm_caps.max_ops);
		printf("\tmax_sge:\t\t\t%u\n", a->tm_caps.max_sge);
		printf("\tflags:\n");
		if (a->tm_caps.flags & IBV_TM_CAP_RC)
			printf("\t\t\t\t\tIBV_TM_CAP_RC\n");
	} else {
		printf("\ttag matching not supported\n");
	}
	if (a->cq_mod_caps.max_cq_count && a->cq_mod_caps.max_cq_period) {
		printf("\n\tcq moderation caps:\n");
		printf("\t\tmax_cq_count:\t%u\n", a->cq_mod_caps.max_cq_count);
		printf("\t\tmax_cq_period:\t%u us\n\n",
		       a->cq_mod_caps.max_cq_period);
	}
	if (a->max_dm_size)
		printf("\tmaximum available device memory:\t%" PRIu64 "Bytes\n\n",
		       a->max_dm_size);
	printf("\tnum_comp_vectors:\t\t%d\n", ctx->num_comp_vectors);
}

/* The sysfs GID type ("IB/RoCE v1" or "RoCE v2"); 1 for RoCE v2. */
static int gid_is_roce_v2(struct ibv_device *dev, uint32_t port, int index)
{
	char file[64], type[32];

	snprintf(file, sizeof(file), "ports/%u/gid_attrs/types/%d", port, index);
	if (read_sysfs(dev, file, type, sizeof(type)) <= 0)
		return 0;
	return !strncmp(type, "RoCE v2", 7);
}

static int print_gids(struct ibv_context *ctx, uint32_t port,
		      const struct ibv_port_attr *pa)
{
	char text[INET6_ADDRSTRLEN], suffix[24] = "";
	union ibv_gid gid;
	int i, v2;

	for (i = 0; i < pa->gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, port, i, &gid)) {
			fprintf(stderr, "Failed to query gid to port %u, index %d\n",
				port, i);
			return 1;
		}
		/* An unset entry has no interface identifier. */
		if (!gid.global.interface_id)
			continue;
		v2 = gid_is_roce_v2(ctx->device, port, i);
		if (pa->link_layer == IBV_LINK_LAYER_ETHERNET)
			snprintf(suffix, sizeof(suffix), ", %s",
				 v2 ? "RoCE v2" : "RoCE v1");
		if (v2 && inet_ntop(AF_INET6, gid.raw, text, sizeof(text))) {
			printf("\t\t\tGID[%3d]:\t\t%s%s\n", i, text, suffix);
			continue;
		}
		printf("\t\t\tGID[%3d]:\t\t", i);
		for (int b = 0; b < 16; b += 2)
			printf("%02x%02x%s", gid.raw[b], gid.raw[b + 1],
			       b < 14 ? ":" : "");
		printf("%s\n", suffix);
	}
	return 0;
}

static int print_port(struct ibv_context *ctx, uint32_t port, int verbose)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(ctx, port, &pa)) {
		fprintf(stderr, "Failed to query port %u props\n", port);
		return 1;
	}
	printf("\t\tport:\t%u\n", port);
	printf("\t\t\tstate:\t\t\t%s (%d)\n",
	       LOOKUP(port_state_names, pa.state, "invalid state"), pa.state);
	printf("\t\t\tmax_mtu:\t\t%s (%d)\n",
	       LOOKUP(mtu_names, pa.max_mtu, "invalid MTU"), pa.max_mtu);
	printf("\t\t\tactive_mtu:\t\t%s (%d)\n",
	       LOOKUP(mtu_names, pa.active_mtu, "invalid MTU"), pa.active_mtu);
	printf("\t\t\tsm_lid:\t\t\t%d\n", pa.sm_lid);
	printf("\t\t\tport_lid:\t\t%d\n", pa.lid);
	printf("\t\t\tport_lmc:\t\t0x%02x\n", pa.lmc);
	printf("\t\t\tlink_layer:\t\t%s\n",
	       LOOKUP(link_layer_names, pa.link_layer, "Unknown"));
	if (verbose) {
		printf("\t\t\tmax_msg_sz:\t\t0x%x\n", pa.max_msg_sz);
		printf("\t\t\tport_cap_flags:\t\t0x%08x\n", pa.port_cap_flags);
		printf("\t\t\tport_cap_flags2:\t0x%04x\n", pa.port_cap_flags2);
		printf("\t\t\tmax_vl_num:\t\t%s (%d)\n",
		       LOOKUP(vl_names, pa.max_vl_num, "invalid value"),
		       pa.max_vl_num);
		printf("\t\t\tbad_pkey_cntr:\t\t0x%x\n", pa.bad_pkey_cntr);
		printf("\t\t\tqkey_viol_cntr:\t\t0x%x\n", pa.qkey_viol_cntr);
		printf("\t\t\tsm_sl:\t\t\t%d\n", pa.sm_sl);
		printf("\t\t\tpkey_tbl_len:\t\t%d\n", pa.pkey_tbl_len);
		printf("\t\t\tgid_tbl_len:\t\t%d\n", pa.gid_tbl_len);
		printf("\t\t\tsubnet_timeout:\t\t%d\n", pa.subnet_timeout);
		printf("\t\t\tinit_type_reply:\t%d\n", pa.init_type_reply);
		printf("\t\t\tactive_width:\t\t%sX (%d)\n",
		       LOOKUP(width_names, pa.active_width, "invalid width"),
		       pa.active_width);
		printf("\t\t\tactive_speed:\t\t%s (%d)\n",
		       LOOKUP(speed_names, pa.active_speed, "invalid speed"),
		       pa.active_speed);
		if (ctx->device->transport_type == IBV_TRANSPORT_IB)
			printf("\t\t\tphys_state:\t\t%s (%d)\n",
			       LOOKUP(phys_state_names, pa.phys_state,
				      "invalid physical state"),
			       pa.phys_state);
		if (print_gids(ctx, port, &pa))
			return 1;
	}
	printf("\n");
	return 0;
}

/* Exit-code bits as rdma-core's: 1 open, 2 query, 3 close, 4 bad port. */
static int print_device(struct ibv_device *dev, unsigned int only_port,
			int verbose)
{
	struct ibv_device_attr_ex attr = {};
	const struct ibv_device_attr *d = &attr.orig_attr;
	struct ibv_context *ctx;
	char buf[256];
	uint32_t port;
	int ret = 0;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "Failed to open device\n");
		return 1;
	}
	if (ibv_query_device_ex(ctx, NULL, &attr)) {
		fprintf(stderr, "Failed to query device props\n");
		ret = 2;
		goto out;
	}
	if (only_port > d->phys_port_cnt) {
		fprintf(stderr, "Invalid port requested for device\n");
		ret = 4;
		goto out;
	}

	printf("hca_id:\t%s\n", ibv_get_device_name(dev));
	printf("\ttransport:\t\t\t%s (%d)\n",
	       LOOKUP(transport_names, dev->transport_type, "invalid transport"),
	       dev->transport_type);
	if (d->fw_ver[0])
		printf("\tfw_ver:\t\t\t\t%s\n", d->fw_ver);
	printf("\tnode_guid:\t\t\t%s\n", guid_str(d->node_guid, buf));
	printf("\tsys_image_guid:\t\t\t%s\n", guid_str(d->sys_image_guid, buf));
	printf("\tvendor_id:\t\t\t0x%04x\n", d->vendor_id);
	printf("\tvendor_part_id:\t\t\t%d\n", d->vendor_part_id);
	printf("\thw_ver:\t\t\t\t0x%X\n", d->hw_ver);
	if (read_sysfs(dev, "board_id", buf, sizeof(buf)) > 0)
		printf("\tboard_id:\t\t\t%s\n", buf);
	printf("\tphys_port_cnt:\t\t\t%d\n", d->phys_port_cnt);
	if (verbose)
		print_device_verbose(ctx, &attr);

	for (port = 1; port <= d->phys_port_cnt; port++) {
		if (only_port && port != only_port)
			continue;
		ret = print_port(ctx, port, verbose);
		if (ret)
			break;
	}
out:
	if (ibv_close_device(ctx)) {
		fprintf(stderr, "Failed to close device");
		ret = 3;
	}
	return ret;
}

static void usage(const char *argv0)
{
	printf("Usage: %s             print the ca attributes\n\n", argv0);
	printf("Options:\n");
	printf("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
	printf("  -i, --ib-port=<port>   use port <port> of IB device (default all ports)\n");
	printf("  -l, --list             print only the IB devices names\n");
	printf("  -v, --verbose          print all the attributes of the IB device(s)\n");
}

static int list_devices(void)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("Failed to get IB devices list");
		return -1;
	}
	printf("%d HCA%s found:\n", n, n != 1 ? "s" : "");
	for (i = 0; i < n; i++)
		printf("\t%s\n", ibv_get_device_name(list[i]));
	printf("\n");
	ibv_free_device_list(list);
	return 0;
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ .name = "ib-dev", .has_arg = 1, .val = 'd' },
		{ .name = "ib-port", .has_arg = 1, .val = 'i' },
		{ .name = "list", .has_arg = 0, .val = 'l' },
		{ .name = "verbose", .has_arg = 0, .val = 'v' },
		{}
	};
	const char *devname = NULL;
	struct ibv_device **list;
	int i, c, port = 0, verbose = 0, ret = 0, found = 0;

	while ((c = getopt_long(argc, argv, "d:i:lv", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			devname = optarg;
			break;
		case 'i':
			port = strtol(optarg, NULL, 0);
			if (port <= 0) {
				usage(argv[0]);
				return 1;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'l':
			return list_devices();
		default:
			usage(argv[0]);
			return -1;
		}
	}

	list = ibv_get_device_list(NULL);
	if (!list) {
		perror("Failed to get IB devices list");
		return -1;
	}
	for (i = 0; list[i]; i++) {
		if (devname && strcmp(ibv_get_device_name(list[i]), devname))
			continue;
		found = 1;
		ret |= print_device(list[i], port, verbose);
		if (devname)
			break;
	}
	if (!found) {
		if (devname)
			fprintf(stderr, "IB device '%s' wasn't found\n", devname);
		else
			fprintf(stderr, "No IB devices found\n");
		ret = -1;
	}
	ibv_free_device_list(list);
	return ret;
}
