# shellcheck shell=bash disable=SC2034 # the arrays and sizes are for the files that source this one
# Shared by tests/middleware: the HCA's counters, and ucx_perftest runs.
# Sourced by the tests, with DEV (and in pair tests ROLE, PEER_IP, PAIR_DIR)
# from the harness.

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# hca_counter NAME: a port counter of DEV (ours: docs/prm.md 12).
hca_counter() {
	cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$1"
}

# UCX picks the device and the transport, nothing else: the issue's "default
# settings".  rxe's UD receives fail UCX's destination-GID check (rxe's CQE
# does not say the packet's header type, so UCX reads an IPv4 header as a
# GRH): there, and only there, that check is turned off.
ucx_env() {	# TLS
	export UCX_NET_DEVICES=$DEV:1 UCX_TLS=$1
	unset UCX_UD_ETH_DGID_CHECK
	if [ "$DEV" = rxe0 ]; then
		export UCX_UD_ETH_DGID_CHECK=n
		echo "note: rxe0: UCX_UD_ETH_DGID_CHECK=n (rxe's UD CQEs lack the header type)"
	fi
}

# ucx_server PORT / ucx_client HOST PORT TEST OPTIONS...:
# one ucx_perftest server serves one test; the client's last line is
# "Final: iterations typical average overall ...".  The client prints that
# line and fails unless the run completed every iteration.
ucx_server() {
	timeout 120 ucx_perftest -p "$1" >"/tmp/ucx-server.$1.log" 2>&1
}
ucx_client() {
	local host=$1 port=$2 test=$3 log st
	shift 3
	log=/tmp/ucx-client.$port.log
	timeout 120 ucx_perftest -p "$port" -t "$test" "$@" "$host" >"$log" 2>&1
	st=$?
	if [ "$st" != 0 ]; then
		fail "ucx_perftest -t $test $*: exit $st ($UCX_TLS)"
		tail -5 "$log"
		return 1
	fi
	if ! grep -q '^Final:' "$log"; then
		fail "ucx_perftest -t $test $*: no final report ($UCX_TLS)"
		tail -5 "$log"
		return 1
	fi
	printf '%-7s %-11s %s\n' "$UCX_TLS" "$test" "$(grep '^Final:' "$log" | tr -s ' ')"
}

# The ucx_perftest cases of the issue: tag matching (eager and, at 1 MiB,
# rendezvous), RMA put and get, an atomic, active messages.
UCX_CASES=(
	"tag_lat -n 300"
	"tag_bw -n 300"
	"tag_bw -n 8 -s 1048576"
	"ucp_put_bw -n 200 -s 65536"
	"ucp_get -n 100 -s 65536"
	"ucp_fadd -n 300"
	"ucp_am_lat -n 300"
)
# What those cases move at least (8 MiB of rendezvous, 12.5 MiB of put,
# 6 MiB of get), for the counter checks.
UCX_CASES_MIN_BYTES=$((26 << 20))
# Across the two-VM link every case costs round trips of a millisecond or
# more: the issue's cases (tag matching in rendezvous, put, get, an atomic)
# with fewer iterations.
UCX_PAIR_CASES=(
	"tag_lat -n 50"
	"tag_bw -n 3 -s 1048576"
	"ucp_put_bw -n 40 -s 65536"
	"ucp_get -n 40 -s 65536"
	"ucp_fadd -n 50"
)
UCX_PAIR_CASES_MIN_BYTES=$((8 << 20))	# 3 MiB + 2.5 MiB + 2.5 MiB

# The MPI runs: every rank's UCX on the HCA alone (no shared memory), our
# libibverbs for every rank, local or started over pair-ssh.
MPI_UCX_TLS=rc_v,self
ompi_run() {	# HOSTS NP PROGRAM ARGS...
	local hosts=$1 np=$2
	shift 2
	# Debian's openmpi-mca-params.conf turns pml ucx off; a user asks for it.
	# pml ucx takes only devices whose driver is mlx*: ours is mlx_hw.
	timeout "${MPI_TIMEOUT:-120}" mpirun.openmpi --allow-run-as-root --oversubscribe \
		--host "$hosts" -np "$np" \
		--mca pml ucx --mca btl self --mca osc ucx \
		${PAIR_DIR:+--mca plm_rsh_agent "$PWD/scripts/pair-ssh"} \
		-x UCX_TLS="$MPI_UCX_TLS" -x UCX_NET_DEVICES="$DEV:1" \
		-x LD_LIBRARY_PATH -x PATH "$@"
}
mpich_run() {	# HOSTS NP PROGRAM ARGS...
	local hosts=$1 np=$2
	shift 2
	timeout "${MPI_TIMEOUT:-120}" mpirun.mpich -hosts "$hosts" -n "$np" \
		${PAIR_DIR:+-launcher ssh -launcher-exec "$PWD/scripts/pair-ssh"} \
		-genv UCX_TLS "$MPI_UCX_TLS" -genv UCX_NET_DEVICES "$DEV:1" \
		-genv LD_LIBRARY_PATH "${LD_LIBRARY_PATH:-}" -genv PATH "$PATH" "$@"
}

# mpi_check_run NAME LOG COMMAND...: runs an mpi_check, which must say ok.
mpi_check_run() {
	local name=$1 log=$2
	shift 2
	local start=$SECONDS st
	"$@" >"$log" 2>&1
	st=$?
	if [ "$st" != 0 ]; then
		fail "$name: exit $st"
		tail -15 "$log"
	elif ! grep -q '^mpi_check: ok' "$log"; then
		fail "$name: no 'mpi_check: ok'"
		tail -15 "$log"
	else
		sed "s/^/$name: /" "$log" | grep 'mpi_check'
	fi
	echo "$name: $((SECONDS - start)) s"
}

# mpi_pair MPI: the body of the mpi-*.pairtest files.  MPI (openmpi or
# mpich) across two VMs, 2 ranks in each, over DEV alone (UCX_TLS without
# shared memory): mpi_check pairs every rank with one in the other VM
# (ping-pong 1 B .. 4 MiB, rendezvous RDMA from 8 KiB up), then
# MPI_Allreduce and MPI_Alltoall over all 4 (512 KiB), every byte checked.
# a launches (mpirun); b's ranks start through scripts/pair-ssh.  Each side
# checks that its HCA carried the traffic.
mpi_pair() {
	local mpi=$1 done=$PAIR_DIR/mpi-$1.done before moved run=ompi_run
	local prog=$BUILD/bin/mpi_check.$1
	[ "$mpi" = mpich ] && run=mpich_run
	before=$(hca_counter sent_bytes)
	if [ "$ROLE" = b ]; then
		rm -f "$done"
		scripts/pair-ssh --serve || { echo "FAIL: pair-ssh --serve"; return 1; }
		SECONDS=0
		until [ -e "$done" ] || [ $SECONDS -ge 280 ]; do sleep 0.5; done
		[ -e "$done" ] || fail "a never finished"
	else
		scripts/wait-port 2222 60 "$PEER_IP" || fail "no pair-ssh server on $PEER_IP"
		if [ -x "$prog" ]; then
			MPI_TIMEOUT=250 mpi_check_run "$mpi" "/tmp/mpi.$mpi.log" \
				$run "$IP:2,$PEER_IP:2" 4 "$prog" 10 $((4 << 20)) $((512 << 10))
		else
			fail "$prog missing (lib$mpi-dev at build time)"
		fi
		touch "$done"
	fi
	moved=$(($(hca_counter sent_bytes) - before))
	# Each side's half of the ping-pongs: 2 pairs x 2 x 4 MiB at least.
	[ "$moved" -ge $((16 << 20)) ] || fail "$ROLE: the HCA sent only $moved bytes"
	echo "$ROLE: the HCA sent $moved bytes"
	[ "$fails" = 0 ] && echo "$mpi: ok"
}
