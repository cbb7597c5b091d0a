package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// explainPod prints every decision the solve took about one pending pod:
// its requests, and for each attempt its requirements and the verdict of
// every existing node, claim of this plan and NodePool, in the order the
// scheduler tried them. Options an attempt never reached (an earlier one
// took the pod) are listed as not tried, so that every node and NodePool
// appears.
func explainPod(stdout, stderr io.Writer, snap *snapshot.Snapshot, in scheduling.Input, target, output string) error {
	key := podKeyOf(target)
	// A CapacityBuffer's virtual pod is placed as the pending pods are.
	pod := findPod(in.Pods, key)
	if pod == nil {
		return missingPod(snap, key)
	}
	result, e, err := scheduling.Explain(in, key)
	if err != nil {
		return err
	}
	printWarnings(stderr, result.Warnings)
	switch output {
	case "json":
		return writeJSON(stdout, e)
	case "yaml":
		return writeYAML(stdout, e)
	}
	return writeTable(stdout, output, func(w io.Writer) error { return writeExplanation(w, pod, e) })
}

// podKeyOf reads "namespace/name", or "name" in namespace default.
func podKeyOf(target string) string {
	if strings.Contains(target, "/") {
		return target
	}
	return corev1.NamespaceDefault + "/" + target
}

func findPod(pods []*corev1.Pod, key string) *corev1.Pod {
	for _, p := range pods {
		if apis.PodKey(p) == key {
			return p
		}
	}
	return nil
}

// missingPod says why a pod cannot be explained: it is bound already, or
// there is no such pending pod (naming a few that there are).
func missingPod(snap *snapshot.Snapshot, key string) error {
	if p := findPod(snap.Bound, key); p != nil {
		return fmt.Errorf("--explain %s: the pod is bound to node %s already; plan places only pending pods", key, p.Spec.NodeName)
	}
	if len(snap.Pending) == 0 {
		return fmt.Errorf("--explain %s: no such pending pod: the input has no pending pod", key)
	}
	var names []string
	for _, p := range snap.Pending[:min(len(snap.Pending), 5)] {
		names = append(names, apis.PodKey(p))
	}
	more := ""
	if len(snap.Pending) > len(names) {
		more = fmt.Sprintf(" and %d more", len(snap.Pending)-len(names))
	}
	return fmt.Errorf("--explain %s: no such pending pod (pending pods: %s%s)", key, strings.Join(names, ", "), more)
}

// writeExplanation prints the explanation as text.
func writeExplanation(w io.Writer, pod *corev1.Pod, e scheduling.Explanation) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Pod %s\n", e.Pod)
	fmt.Fprintf(tw, "  requests:\t%s\n", formatRequests(e.Requests))
	fmt.Fprintf(tw, "  tolerations:\t%s\n", formatTolerations(pod.Spec.Tolerations))
	fmt.Fprintf(tw, "  outcome:\t%s\n", e.Outcome)
	if len(e.Attempts) == 0 {
		fmt.Fprintln(tw, "\nNo attempt: the pod was refused before any node or NodePool was tried.")
	}
	for i, a := range e.Attempts {
		fmt.Fprintf(tw, "\nAttempt %d (%s)\n", i+1, relaxations(a.Relaxations))
		fmt.Fprintf(tw, "  requirements:\t%s\n", orNone(a.Requirements))
		writeVerdicts(tw, "existing nodes (initialized first, then by name)", a.Nodes, e.NodeOrder)
		writeVerdicts(tw, "NodeClaims of this plan (fewest pods first)", a.Claims, nil)
		writeVerdicts(tw, "NodePools (weight, then name descending)", a.NodePools, e.NodePoolOrder)
	}
	return tw.Flush()
}

// writeVerdicts prints the verdicts of one kind of option, then the
// options of all that the attempt did not reach.
func writeVerdicts(w io.Writer, title string, verdicts []scheduling.Verdict, all []string) {
	if len(verdicts) == 0 && len(all) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s:\n", title)
	seen := map[string]bool{}
	for _, v := range verdicts {
		seen[v.Name] = true
		if v.Accepted {
			fmt.Fprintf(w, "    %s\taccepted\n", v.Name)
		} else {
			fmt.Fprintf(w, "    %s\trefused: %s\n", v.Name, v.Reason)
		}
	}
	for _, name := range all {
		if !seen[name] {
			fmt.Fprintf(w, "    %s\tnot tried: an earlier option took the pod\n", name)
		}
	}
}

func relaxations(n int) string {
	switch n {
	case 0:
		return "as written"
	case 1:
		return "1 preference relaxed"
	default:
		return fmt.Sprintf("%d preferences relaxed", n)
	}
}

// formatRequests prints requests sorted by resource name: "cpu=1, pods=1".
func formatRequests(requests map[string]string) string {
	names := make([]string, 0, len(requests))
	for name := range requests {
		names = append(names, name)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + "=" + requests[name]
	}
	return orNone(strings.Join(parts, ", "))
}

// formatTolerations prints tolerations as kubectl writes taints:
// key=value:Effect, key:Effect for operator Exists, and * for a key that
// matches every taint.
func formatTolerations(tolerations []corev1.Toleration) string {
	parts := make([]string, len(tolerations))
	for i, t := range tolerations {
		s := t.Key
		switch {
		case t.Key == "":
			s = "*"
		case t.Operator != corev1.TolerationOpExists:
			s += "=" + t.Value
		}
		if t.Effect != "" {
			s += ":" + string(t.Effect)
		}
		parts[i] = s
	}
	return orNone(strings.Join(parts, ", "))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
