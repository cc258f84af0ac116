# rxe-veth.sh - sourced in an rdma_rxe guest (scripts/vm-run --stack rxe):
# two rxe devices talking over a real link, rxea on veth0 (10.9.1.1) and
# rxeb on veth1 (10.9.1.2), the two ends of one veth pair - the addresses
# of scripts/vm-pair's VMs a and b.  The harness's rxe0 on d0 stays as it
# is, and rxe_veth_teardown undoes everything, for the tests that follow in
# the same guest.
#
# Both ends stay in the initial network namespace: rdma_rxe (6.1, 6.12)
# opens its UDP port 4791 there only, so an end moved into another
# namespace would never see its packets.  Two local addresses would
# normally reach each other through lo, never the wire; instead policy
# routing sends locally generated traffic between them out of the veth
# ("iif lo" rules ahead of the local table), accept_local lets the other
# end take a packet from an address of its own host, and static neighbour
# entries spare ARP.  Packets between rxea and rxeb then cross the veth,
# where tcpdump and roce_inject see and inject them.

rxe_veth_sysctls="rp_filter accept_local"
rxe_veth_saved=

rxe_veth_setup() {
	local k s
	for k in all default; do
		for s in $rxe_veth_sysctls; do
			rxe_veth_saved="$rxe_veth_saved net.ipv4.conf.$k.$s=$(sysctl -n net.ipv4.conf.$k.$s)"
		done
	done
	ip link add veth0 type veth peer name veth1 || return 1
	ip addr add 10.9.1.1/24 dev veth0
	ip addr add 10.9.1.2/24 dev veth1
	ip link set veth0 up && ip link set veth1 up || return 1
	for k in all default veth0 veth1; do
		sysctl -qw net.ipv4.conf.$k.rp_filter=0 \
			net.ipv4.conf.$k.accept_local=1 || return 1
	done
	ip rule add pref 100 lookup local && ip rule del pref 0 &&
	ip rule add pref 10 iif lo to 10.9.1.2 lookup 101 &&
	ip rule add pref 11 iif lo to 10.9.1.1 lookup 102 &&
	ip route add 10.9.1.2 dev veth0 src 10.9.1.1 table 101 &&
	ip route add 10.9.1.1 dev veth1 src 10.9.1.2 table 102 || return 1
	ip neigh replace 10.9.1.2 lladdr "$(cat /sys/class/net/veth1/address)" \
		dev veth0 nud permanent &&
	ip neigh replace 10.9.1.1 lladdr "$(cat /sys/class/net/veth0/address)" \
		dev veth1 nud permanent || return 1
	rdma link add rxea type rxe netdev veth0 &&
	rdma link add rxeb type rxe netdev veth1 || return 1
	for k in $(seq 50); do
		[ -n "$(rxe_gid_index rxea 10.9.1.1)" ] &&
			[ -n "$(rxe_gid_index rxeb 10.9.1.2)" ] && return 0
		sleep 0.1
	done
	echo "rxe-veth: no RoCEv2 GIDs for 10.9.1.1/10.9.1.2" >&2
	return 1
}

rxe_veth_teardown() {
	rdma link delete rxea 2>/dev/null
	rdma link delete rxeb 2>/dev/null
	ip link del veth0 2>/dev/null
	ip rule del pref 10 2>/dev/null
	ip rule del pref 11 2>/dev/null
	ip route flush table 101 2>/dev/null
	ip route flush table 102 2>/dev/null
	if ! ip rule show pref 0 | grep -q local; then
		ip rule add pref 0 lookup local
		ip rule del pref 100 2>/dev/null
	fi
	[ -z "$rxe_veth_saved" ] || sysctl -qw $rxe_veth_saved
}

# rxe_gid_index DEV IPV4: the index of DEV's RoCEv2 GID for IPV4.
rxe_gid_index() {
	local p=/sys/class/infiniband/$1/ports/1 want g i
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		$(echo "$2" | tr . ' '))
	for g in "$p"/gids/*; do
		i=${g##*/}
		[ "$(cat "$g" 2>/dev/null)" = "$want" ] || continue
		[ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "$i"; return 0; }
	done
	return 1
}
