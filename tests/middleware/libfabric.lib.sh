# shellcheck shell=bash
# libfabric.lib.sh - sourced by libfabric.vmtest, libfabric.rxe.vmtest and
# libfabric.pairtest: Debian's libfabric 1.17 (fi_pingpong, fi_info) on the
# verbs provider of $DEV, every run bounded and printed, data checked (-c).
#
# ofi_rxm sizes the verbs CQ of an RDM endpoint as (128 + 128) *
# FI_UNIVERSE_SIZE CQEs, 262144 with the default universe of 1024.  mlx_hw0
# takes that (max_cqe 2^22 - 1, as a ConnectX); rxe's max_cqe is 32767, so
# there fi_enable fails (EINVAL from ibv_create_cq, "Unable to create verbs
# CQ") unless FI_UNIVERSE_SIZE is at most 127: on rxe0 alone the RDM runs
# set it to 64.
set -u
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# shellcheck disable=SC2034 # used by the files that source this one
RDM_ENV=(env)
[ "$DEV" = rxe0 ] && RDM_ENV=(env FI_UNIVERSE_SIZE=64)
lf_tmp=$(mktemp -d)

lf_need() {
	local b
	for b in fi_pingpong fi_info; do
		command -v $b >/dev/null ||
			{ echo "FAIL: $b missing (Debian's libfabric-bin)"; exit 1; }
	done
	if [ "$DEV" = rxe0 ]; then
		modprobe rdma_ucm || { echo "FAIL: modprobe rdma_ucm"; exit 1; }
	fi
}

# lf_ok FILE NSIZES: fi_pingpong's table has NSIZES rows, each with every
# message acknowledged ("#ack" is "=#sent"), and -c found no corrupted byte
# (it prints "Error at iteration=... byte=..." and should exit nonzero).
lf_ok() {
	local rows
	! grep -q '^Error at iteration' "$1" || return 1
	rows=$(awk '$1 ~ /^[0-9]+[km]?$/ && $3 == "=" $2 {n++} END {print n + 0}' "$1")
	[ "$rows" = "$2" ]
}

# lf_server NAME PORT ARGS...: starts fi_pingpong's server in the background
# (control port PORT); lf_server_wait NAME NSIZES waits for it and checks it.
lf_server() {
	local name=$1 port=$2
	shift 2
	echo "+ $* -B $port   # server"
	timeout 120 "$@" -B "$port" >"$lf_tmp/$name.s" 2>&1 &
	echo $! >"$lf_tmp/$name.pid"
}

lf_server_wait() {
	local name=$1 n=$2 pid st
	pid=$(cat "$lf_tmp/$name.pid")
	# Across two VMs a failed client leaves the server waiting: stop it.
	while [ -n "${PAIR_DIR:-}" ] && kill -0 "$pid" 2>/dev/null; do
		[ "$(cat "$PAIR_DIR/lf.$name.done" 2>/dev/null)" = fail ] && kill "$pid"
		sleep 0.2
	done
	wait "$pid"
	st=$?
	if [ $st = 0 ] && lf_ok "$lf_tmp/$name.s" "$n"; then
		echo "ok $name server ($DEV)"
		return 0
	fi
	fail "$name: server on $DEV exit $st"
	tail -n 20 "$lf_tmp/$name.s"
	return 1
}

# lf_client NAME PORT HOST NSIZES ARGS...: waits for the server's control
# port on HOST, runs the client; exit 0 and NSIZES complete rows wanted.
lf_client() {
	local name=$1 port=$2 host=$3 n=$4 st
	shift 4
	# The server's own host is probed locally (/proc/net/tcp), a peer
	# half-open.
	if ! scripts/wait-port "$port" 60 "${host/#$IP/}"; then
		fail "$name: no server on $host:$port"
		lf_done "$name" fail
		return 1
	fi
	echo "+ $* -P $port $host   # client"
	timeout 120 "$@" -P "$port" "$host" >"$lf_tmp/$name.c" 2>&1
	st=$?
	cat "$lf_tmp/$name.c"
	if [ $st = 0 ] && lf_ok "$lf_tmp/$name.c" "$n"; then
		echo "ok $name client ($DEV)"
		lf_done "$name" ok
		return 0
	fi
	fail "$name: client on $DEV exit $st"
	lf_done "$name" fail
	return 1
}

# lf_done NAME ok|fail: tells a server in the other VM how its client ended.
lf_done() {
	[ -z "${PAIR_DIR:-}" ] || echo "$2" >"$PAIR_DIR/lf.$1.done"
}

# lf_figure FILE: "usec/xfer MB/sec" of the table's last row.
lf_figure() {
	awk '$1 ~ /^[0-9]+[km]?$/ && $3 == "=" $2 {u = $7; m = $6} END {print u " us/xfer, " m " MB/s"}' "$1"
}
