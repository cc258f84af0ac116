# roce-inject.sh - sourced by the roce-inject pair tests: b runs our stack
# and is attacked, a runs the stream's other end and roce_inject.  The two
# sides meet through files in $RI (under PAIR_DIR): each waits for the
# other's with ri_wait, and a side that gives up leaves RI/ROLE.failed, so
# that the peer stops waiting at once.
#
# What b counts a packet as, by the checks of docs/wire.md 14.2 in their
# order, is ri_expect's table: the generator's log (-v) says each packet's
# category, variant, length and opcode, which decide it.

ri_fail=0
ri_bad() { echo "FAIL: $*"; ri_fail=1; }

# ri_init NAME: the rendezvous directory of test NAME.
ri_init() {
	RI=$PAIR_DIR/$1
	mkdir -p "$RI"
	ri_klog=$(dmesg | wc -l)
}

# ri_wait FILE SECONDS WHAT: waits for RI/FILE; 1 if the peer failed or
# time ran out (said so).
ri_wait() {
	local peer=a end=$((SECONDS + $2))
	[ "$ROLE" = a ] && peer=b
	until [ -e "$RI/$1" ]; do
		if [ -e "$RI/$peer.failed" ]; then
			echo "FAIL: $peer gave up while $ROLE waited for $3"
			return 1
		fi
		if [ $SECONDS -ge $end ]; then
			echo "FAIL: no $3 from $peer within $2 s"
			return 1
		fi
		sleep 0.3
	done
}

# ri_give_up MESSAGE: fails this side and tells the peer.
ri_give_up() {
	echo "FAIL: $*"
	touch "$RI/$ROLE.failed"
	exit 1
}

# ri_snap: every counter that can see an injected packet, "name value" per
# line: DEV's hw_counters, the IP and UDP MIBs of IPv4 (ip/..., udp/...)
# and IPv6 (ip6/..., udp6/...).  The hw_counters are read without a fork
# each: with one cat per counter a snapshot took 5-14 s under TCG, and
# ri_settle's five of them a minute.
ri_snap() {
	local f v
	for f in /sys/class/infiniband/$DEV/ports/1/hw_counters/*; do
		[ "${f##*/}" = lifespan ] && continue
		read -r v <"$f"
		echo "${f##*/} $v"
	done
	awk '/^(Ip|Udp):/ { if (!($1 in h)) { h[$1] = $0; next }
		split(h[$1], k); p = tolower(substr($1, 1, length($1) - 1))
		for (i = 2; i <= NF; i++) print p "/" k[i], $i }' /proc/net/snmp
	awk '$1 ~ /^(Ip6|Udp6)/ { p = $1 ~ /^Ip6/ ? "ip6" : "udp6"
		print p "/" substr($1, length(p) + 1), $2 }' /proc/net/snmp6
} 2>/dev/null

# ri_settle: waits until the counters an injected packet moves (drops,
# ICRC errors, responses, the UDP MIB) have not changed for 2 s (at most
# 60 s): the packets in flight have all been counted.
ri_settle() {
	local prev= cur same=0 end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		cur=$(ri_snap | grep -E '^(rx_drop_|rx_icrc_err |rx_acks |rx_read_responses |udp6?/InErrors |ip6?/Reasm)')
		if [ "$cur" = "$prev" ]; then
			same=$((same + 1))
			[ $same -lt 4 ] || return 0
		else
			same=0 prev=$cur
		fi
		sleep 0.5
	done
	echo "ri_settle: the counters still move after 60 s"
}

# ri_delta BEFORE AFTER: "name before after delta" for each counter.
ri_delta() {
	join "$1" "$2" | awk '{ print $1, $2, $3, $3 - $2 }'
}

# ri_expect LOG: from roce_inject's -v log, how many packets each counter
# of b must have counted, "counter count" per line.  Beside the drop
# counters: udp/InErrors or udp6/InErrors (the UDP layer's, by the
# stream's address family), rx_acks (responses b's QP took in: b sends no
# requests, so the stream brings it none), and admitted:out_of_seq_request
# and admitted:duplicate_request (requests outside the PSN window, which
# the responder counts, NAKs once per gap, or answers again).  The UDP
# payload is the frame length less 42 (IPv6: 62) bytes of Ethernet, IP and
# UDP headers.
#   - Without 16 bytes of UDP payload (a BTH and an ICRC) a packet is
#     truncated; with them, the ICRC is checked first: a packet cut short
#     or random bytes fail it (its last 4 bytes are no ICRC).
#   - A valid ICRC, then the headers: the opcode (RD and reserved ones are
#     unknown), TVer, the headers and pad present, the payload (at most
#     4096 bytes), the P_Key; then the QP: it exists (QPN 0 does not; QPN 1
#     is the GSI QP of the MAD layer, a UD QP: an RC opcode to it is
#     another transport, and its Q_Key is 0x80010000), its transport, a UD
#     QP's Q_Key.
ri_expect() {
	awk '
	BEGIN { hl = 42; udp = "udp/InErrors" }
	/^roce_inject: learned .* target .* of [0-9a-f]*:/ {
		hl = 62; udp = "udp6/InErrors" }
	/^roce_inject: UD QP 0x/ { udqp[$4] = 1 }
	/^#[0-9]+ frame / {
		split($4, cv, "/"); cat = cv[1]; v = cv[2]
		len = $6; op = $8; qpn = $10
		pl = len - hl
		if (cat == "truncated") {
			if (v == "in-udp") k = udp
			else if (v == "pad-gt-payload" || pl < 16) k = "rx_drop_truncated"
			else k = "rx_icrc_err"
		} else if (cat == "random") {
			k = pl < 16 ? "rx_drop_truncated" : "rx_icrc_err"
		} else if (cat == "bad-icrc") {
			k = "rx_icrc_err"
		} else if (cat == "wrong-qpn") {
			k = v == "qpn-1-gsi" ? "rx_drop_transport" : "rx_drop_qpn"
		} else if (cat == "wrong-pkey") {
			k = "rx_drop_pkey"
		} else if (cat == "wrong-qkey") {
			k = (qpn in udqp || qpn == "0x000001") ? "rx_drop_qkey" : "rx_drop_qpn"
		} else if (cat == "bad-tver") {
			k = "rx_drop_version"
		} else if (cat == "bad-opcode") {
			# RD (0x40-0x5f) is unknown; another transport a mismatch
			rd = substr(op, 3, 1) ~ /^[45]$/
			k = v != "other-transport" || rd ? "rx_drop_opcode" : "rx_drop_transport"
		} else if (cat == "oversized") {
			# payload: less headers (UD: BTH + DETH), pad and ICRC
			data = pl - (op == "0x64" ? 20 : 12) - 4
			if (v == "udp-len-long") k = udp
			else if (v == "udp-len-short") k = "rx_icrc_err"
			else if (data > 4096) k = "rx_drop_length"
			else k = "admitted:out_of_seq_request"	# sent ahead
		} else if (cat == "psn-window") {
			if (v ~ /^resp-/) k = "rx_acks"
			else if (v ~ /ahead$/) k = "admitted:out_of_seq_request"
			else k = "admitted:duplicate_request"
		} else {
			k = "unknown:" cat
		}
		n[k]++
	}
	END { for (k in n) print k, n[k] }' "$1" | sort
}

# ri_check_counters DELTAS EXPECTED LOST: asserts each drop counter of
# DELTAS (ri_delta's output) moved by exactly EXPECTED's count for it (0 if
# none), udp/InErrors and rx_acks too, and out_of_seq_request and
# duplicate_request at least by the admitted requests.  With LOST frames
# lost on the link, up to that many fewer.  Prints the table.
ri_check_counters() {
	local c want got lost=${3:-0}
	[ "$lost" -ge 0 ] || lost=0
	printf '%-26s %10s %10s\n' counter expected delta
	for c in rx_icrc_err rx_drop_truncated rx_drop_opcode rx_drop_version \
		rx_drop_pkey rx_drop_qkey rx_drop_qpn rx_drop_transport rx_drop_addr \
		rx_drop_state rx_drop_length rx_drop_queue_full udp/InErrors \
		udp6/InErrors rx_acks \
		out_of_seq_request duplicate_request; do
		want=$(awk -v k="$c" '$1 == k || $1 == "admitted:" k { n += $2 } END { print n + 0 }' "$2")
		got=$(awk -v k="$c" '$1 == k { print $4 + 0 }' "$1")
		printf '%-26s %10s %10s\n' "$c" "$want" "${got:-?}"
		case $c in
		out_of_seq_request|duplicate_request)
			[ "${got:-0}" -ge $((want - lost)) ] ||
				ri_bad "$c moved by ${got:-?}, not at least $want" ;;
		*)
			[ "${got:--1}" -le "$want" ] && [ "${got:--1}" -ge $((want - lost)) ] ||
				ri_bad "$c moved by ${got:-?}, not $want$([ $lost = 0 ] || echo " (or up to $lost fewer)")" ;;
		esac
	done
	if grep -q '^unknown:' "$2"; then
		ri_bad "categories this test does not know: $(grep '^unknown:' "$2" | xargs)"
	fi
}

# ri_fragmented LOG MTU: how many packets of LOG went as IPv4 fragments
# (an IP datagram above MTU bytes, roce_inject --frag-mtu).
ri_fragmented() {
	awk -v mtu="$2" '/^#[0-9]+ frame / && $6 - 14 > mtu { n++ } END { print n + 0 }' "$1"
}

# ri_drops DELTAS: the sum of the drop counters' deltas.
ri_drops() {
	awk '$1 ~ /^rx_drop_|^rx_icrc_err$/ { n += $4 } END { print n + 0 }' "$1"
}

# ri_kernel_clean: no oops, WARN or slab complaint since ri_init.
ri_kernel_clean() {
	if dmesg | tail -n +$((ri_klog + 1)) |
		grep -Eq 'Oops|WARNING:|BUG:|Call Trace|KFENCE|refcount_t|general protection'; then
		dmesg | tail -n +$((ri_klog + 1)) | tail -40
		ri_bad "kernel complaint in $ROLE during the test"
	fi
}
