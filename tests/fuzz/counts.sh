# Leak checks shared by the fuzz and load tests: the object counts of our
# modules (debugfs; rdma_cm's ids in sysfs) must be back at their baseline once every process of a
# campaign has exited.  Sourced; defines counts_snapshot and counts_check.

counts_snapshot() {
	cat /sys/kernel/debug/ibx_uverbs/objects /sys/kernel/debug/mlx_hw/objects
	# ibx_rdma_cm's live ids and multicast memberships, when it is loaded.
	local cm=/sys/class/misc/rdma_cm
	if [ -e $cm/ibx_ids ]; then
		echo "rdma_cm_ids $(cat $cm/ibx_ids)"
		echo "rdma_cm_mcasts $(cat $cm/ibx_mcasts)"
	fi
}

# counts_check BASELINE: fails (prints the difference) unless the counts,
# polled for up to 10 s while deferred teardown finishes, equal BASELINE and
# nothing is pinned.
counts_check() {
	local base=$1 now i
	for i in $(seq 100); do
		now=$(counts_snapshot)
		[ "$now" = "$base" ] && break
		sleep 0.1
	done
	if [ "$now" != "$base" ]; then
		echo "FAIL: object counts did not return to their baseline:"
		diff <(echo "$base") <(echo "$now")
		return 1
	fi
	grep -qx 'pinned_pages 0' <<<"$now" || { echo "FAIL: pages still pinned: $now"; return 1; }
	echo "ok: object counts back at the baseline, nothing pinned"
}
