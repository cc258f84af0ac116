# Shared by examples.vmtest and examples.pairtest (sourced): waiting for an
# example's "ready" line, and what an example's exit status means.

fail() { echo "FAIL: $*"; exit 1; }

# wait_ready FILE PID SECONDS: until FILE says "ready" (written by the
# example once it listens or has joined); fails early if PID has exited.
wait_ready() {
	local file=$1 pid=$2 limit=$3 i
	for i in $(seq $((limit * 10))); do
		grep -qs '^ready$' "$file" && return 0
		kill -0 "$pid" 2>/dev/null || { echo "FAIL: pid $pid exited before it was ready"; return 1; }
		sleep 0.1
	done
	echo "FAIL: not ready after $limit s ($file)"
	return 1
}

# The examples exit 3 when the stack lacks what they show (ex_util.h).
EX_UNSUPPORTED=3

# stop_bg PID: ends a background example we started (it may wait forever
# for a peer that gave up), and reaps it.
stop_bg() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

rdma_cm_clean() {	# on our stack: no id or membership left
	local s=/sys/class/misc/rdma_cm
	[ -e $s/ibx_ids ] || return 0
	for _ in $(seq 50); do
		[ "$(cat $s/ibx_ids)" = 0 ] && [ "$(cat $s/ibx_mcasts)" = 0 ] && return 0
		sleep 0.1
	done
	echo "FAIL: $1 left ids=$(cat $s/ibx_ids) mcasts=$(cat $s/ibx_mcasts)"
	return 1
}

# ll_gid_index DEV: the index of port 1's RoCE v2 GID that is an IPv6
# link-local address (apm_example -a: an alternate path between other GIDs).
ll_gid_index() {
	local p=/sys/class/infiniband/$1/ports/1 g i
	for g in "$p"/gids/*; do
		i=${g##*/}
		case $(cat "$g" 2>/dev/null) in
		fe80:*) [ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] && { echo "$i"; return 0; } ;;
		esac
	done
	return 1
}
