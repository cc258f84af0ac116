# install-checks.sh - sourced by the VM tests of an installation of the
# stack (make-install.none.vmtest, deb-install.none.vmtest): what every way
# of installing must provide, and what removing it must take away.  Each
# check fails the test (set -e in the caller) with a message.

die() { echo "FAIL: $*"; exit 1; }

# installed_ok RULES LIBDIR: the modules are loaded (the installer loads
# them), the device nodes and files are in place, and ld.so resolves
# libibverbs.so.1 to LIBDIR first.
installed_ok() {
	local rules=$1 libdir=$2 first
	for m in ibx_uverbs mlx_hw ibx_rdma_cm; do
		grep -q "^$m " /proc/modules || die "$m is not loaded"
	done
	[ "$(stat -c %a /dev/infiniband/rdma_cm)" = 666 ] || die "/dev/infiniband/rdma_cm is not 0666"
	[ -f "$rules" ] || die "no udev rule $rules"
	[ -f /etc/security/limits.d/mlx_hw.conf ] || die "no memlock limits file"
	grep -qx 'blacklist ib_core' /etc/modprobe.d/mlx_hw-no-intree-rdma.conf ||
		die "the in-tree blacklist does not name ib_core"
	[ -f "$libdir/ibx-verbs/libmlx_hw-ibx.so" ] || die "no provider in $libdir/ibx-verbs"
	# ldconfig -p lists the cache in the order ld.so searches it.
	first=$(ldconfig -p | awk '$1 == "libibverbs.so.1" && /x86-64/ { print $NF; exit }')
	[ "$first" = "$libdir/libibverbs.so.1" ] ||
		die "ld.so resolves libibverbs.so.1 to $first, not $libdir's"
	echo "ok: modules loaded, files in place, libibverbs.so.1 is $first"
}

# dummy_netdev NAME ADDR/LEN: a dummy netdev, up, with that IPv4 address.
dummy_netdev() {
	grep -q '^dummy ' /proc/modules || modprobe dummy numdummies=0
	ip link add "$1" type dummy
	ip addr add "$2" dev "$1"
	ip link set "$1" up
}

# hca_ok NAME: the HCA NAME exists with its verbs node (0666) and the
# rdma tool sees it through our core; the in-tree core stayed unloaded.
hca_ok() {
	local i
	for i in $(seq 50); do [ -c /dev/infiniband/uverbs0 ] && break; sleep 0.1; done
	[ "$(stat -c %a /dev/infiniband/uverbs0)" = 666 ] || die "/dev/infiniband/uverbs0 is not 0666"
	[ "$(cat /sys/class/infiniband_verbs/abi_version)" = 6 ] || die "uverbs ABI is not 6"
	rdma dev | grep -q "^[0-9]*: $1: node_type ca " || die "rdma dev does not list $1"
	! grep -q '^ib_core ' /proc/modules || die "the in-tree ib_core was loaded"
	echo "ok: $1 is up, rdma dev lists it"
}

# removed_ok RULES LIBDIR: no module of ours loaded, none of the files
# installed_ok checked, and ld.so no longer knows LIBDIR.
removed_ok() {
	local rules=$1 libdir=$2 f
	for m in ibx_uverbs mlx_hw ibx_rdma_cm; do
		! grep -q "^$m " /proc/modules || die "$m is still loaded"
	done
	for f in "$rules" /etc/security/limits.d/mlx_hw.conf \
		/etc/modprobe.d/mlx_hw-no-intree-rdma.conf "$libdir/libibverbs.so.1" \
		"$libdir/ibx-verbs/libmlx_hw-ibx.so"; do
		[ ! -e "$f" ] || die "$f is left"
	done
	! ldconfig -p | grep -qF "$libdir/" || die "ldconfig still lists $libdir"
	echo "ok: modules unloaded, files removed, $libdir gone from ld.so's cache"
}
