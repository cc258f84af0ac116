# counters.sh - sourced by wire tests: hw_snapshot prints "name value" for
# every hw_counter of $DEV's port 1, read without a fork per counter (a fork
# costs in TCG).
hw_snapshot() {
	local f v
	for f in /sys/class/infiniband/$DEV/ports/1/hw_counters/*; do
		read -r v <"$f"
		echo "${f##*/} $v"
	done
}
