#!/usr/bin/env bash
# side-by-side.sh [ROUNDS] [SIZES]: karpsim's BenchmarkKarpenterShape and
# Karpenter v1.15.0's BenchmarkKarpenterConsolidation on the same clusters,
# interleaved: each round runs, for each size, karpsim's benchmark and then
# Karpenter's, one Karpenter benchmark per process, each under
# /usr/bin/time -v, with the load average before each. ROUNDS defaults to 3,
# SIZES to "100 1000". Run from anywhere in the repository; it prints the
# benchmark lines, the load and the processes' CPU time and peak RSS, and
# leaves the full output in $OUT (default: a new temporary directory).
# Karpenter's side needs kube-apiserver in ~/.cache/karpsim and etcd on the
# PATH (its benchmark skips, saying how to get them, without).
set -euo pipefail
rounds=${1:-3}
sizes=${2:-"100 1000"}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
out=${OUT:-$(mktemp -d)}
echo "output in $out"
(cd "$root" && go test -c -o "$out/karpsim.test" ./consolidation/)
(cd "$root/upstream" && GOTOOLCHAIN=go1.27.3 go test -c -o "$out/karpenter.test" ./differential/disruption/)
timed() { # timed NAME COMMAND...: runs the command under /usr/bin/time -v into $out/NAME.
	local name=$1
	shift
	echo "== $name $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/$name"
	/usr/bin/time -v "$@" >>"$out/$name" 2>&1 || { cat "$out/$name"; return 1; }
	grep -E '^(Benchmark|--- SKIP|    .*(skip|Karpenter:))' "$out/$name" || true
	grep -E 'User time|System time|Elapsed|Maximum resident' "$out/$name" | sed 's/^\t*/   /'
}
for round in $(seq "$rounds"); do
	for n in $sizes; do
		(cd "$root/consolidation" && timed "karpsim-$n-$round" "$out/karpsim.test" -test.run '^$' \
			-test.bench "KarpenterShape/nodes=$n\$" -test.benchtime 10x -test.benchmem)
		(cd "$root/upstream/differential/disruption" && timed "karpenter-$n-$round" "$out/karpenter.test" -test.run '^$' \
			-test.bench 'KarpenterConsolidation' -bench-nodes "$n" -test.benchtime 1x -test.timeout 60m)
	done
done
