# counters.sh - sourced by wire tests and scripts/bench-guest: hw_snapshot
# prints "name value" for every hw_counter of port 1 of $DEV (ours' and
# rxe's alike), read without a fork per counter (a fork costs in TCG), and
# hw_deltas and hw_moved print what moved since a snapshot (every counter,
# or those that moved).  Pair tests publish their deltas as "name delta"
# lines in $sync/a and $sync/b (hw_publish, and hw_await for the peer's);
# d and expect read them, expect sets fail=1.
hw_snapshot() {
	local f v
	for f in /sys/class/infiniband/$DEV/ports/1/hw_counters/*; do
		if [ -f "$f" ] && read -r v <"$f"; then echo "${f##*/} $v"; fi
	done
}
hw_deltas() {	# hw_deltas SNAPSHOT-FILE: "name delta" of every counter since it
	# %.0f: a byte count beyond 2^31 in full, not in mawk's exponent form
	hw_snapshot | awk 'NR == FNR { was[$1] = $2; next }
		{ printf "%s %.0f\n", $1, $2 - was[$1] }' "$1" -
}
hw_moved() {	# hw_moved SNAPSHOT-FILE: "name delta" of the counters that moved
	hw_deltas "$1" | awk '$2 != 0'
}
hw_publish() {	# hw_publish SNAPSHOT-FILE: hw_deltas into $sync/$ROLE, for the peer
	hw_deltas "$1" >"$sync/$ROLE.tmp" &&
		mv "$sync/$ROLE.tmp" "$sync/$ROLE"	# the peer sees the whole file or none
}
hw_await() {	# hw_await SIDE: waits up to 60 s for SIDE's published deltas
	for _ in $(seq 600); do [ -f "$sync/$1" ] && return 0; sleep 0.1; done
	echo "FAIL: $1's counters never came"
	return 1
}
d() {	# d SIDE NAME: the delta of counter NAME on SIDE
	awk -v n="$2" '$1 == n {print $2; found = 1} END {if (!found) print "missing"}' "$sync/$1"
}
expect() {	# expect SIDE NAME OP VALUE: asserts "delta OP VALUE"
	local v
	v=$(d "$1" "$2")
	if [ "$v" = missing ] || ! [ "$v" "$3" "$4" ]; then
		echo "FAIL: $1's $2 moved by $v, expected $3 $4"
		fail=1
	fi
}
