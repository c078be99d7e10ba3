# Sourced by the scripts that start servers on this machine's ports: hack/local-cluster.sh
# (a cluster's seven), hack/real-node.sh (its registry and kube-proxy) and hack/catalog.sh
# (its registry). make ci runs suites side by side, each with clusters and registries of its
# own, so a port is chosen at random among those free, and claimed for ten minutes: the server
# it is for may not listen on it yet (kwokctl waits up to two minutes for a cluster), and no
# other choice takes it meanwhile.

# free_ports N: N distinct TCP ports, at random from 20000 to 29999 (below the kernel's
# ephemeral ports), on one line: none that a socket of this machine uses (/proc/net/tcp and
# tcp6: any address, any state), nor any claimed in the last ten minutes (the claims file,
# read and written under its lock).
free_ports() (
	claims=${TMPDIR:-/tmp}/foo-operator-ports
	exec 9>>"$claims"
	flock 9
	declare -A used=()
	kept=() chosen=()
	while read -r claimed port; do
		[ $((EPOCHSECONDS - claimed)) -lt 600 ] || continue
		used[$port]=1
		kept+=("$claimed $port")
	done <"$claims"
	while read -r _ address _; do
		used[$((16#${address##*:}))]=1
	done < <(tail -q -n +2 /proc/net/tcp /proc/net/tcp6 2>/dev/null)
	while [ ${#chosen[@]} -lt "$1" ]; do
		port=$((20000 + RANDOM % 10000))
		[ -z "${used[$port]:-}" ] || continue
		used[$port]=1
		chosen+=("$port")
		kept+=("$EPOCHSECONDS $port")
	done
	printf '%s\n' "${kept[@]}" >"$claims"
	echo "${chosen[*]}"
)
