package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/snapshot"
)

// limitOptions are the flags that raise (or lower) the limits on input,
// each a field of a library option, with the library's default as its own.
// docs/limits.md's table lists every limit.
type limitOptions struct {
	inputBytes  int64
	objects     int
	objectBytes int64
	pods        int
	duration    time.Duration
}

// addInputLimitFlags adds the limits of reading manifests and expanding
// their workloads: --max-input-bytes, --max-objects, --max-object-bytes
// and --max-pods.
func addInputLimitFlags(cmd *cobra.Command, o *limitOptions) {
	f := cmd.Flags()
	f.Int64Var(&o.inputBytes, "max-input-bytes", manifests.MaxStreamBytes, "the most `BYTES` read from one file or stream, 1 GiB by default (manifests.Limits.Bytes)")
	f.IntVar(&o.objects, "max-objects", manifests.MaxObjects, "the most objects read, List items included (`N`; manifests.Limits.Objects)")
	f.Int64Var(&o.objectBytes, "max-object-bytes", manifests.MaxObjectBytes, "the most `BYTES` one object's document or List item may hold, 16 MiB by default (manifests.Limits.ObjectBytes)")
	f.IntVar(&o.pods, "max-pods", snapshot.DefaultMaxPods, "the most pods Deployments, ReplicaSets, StatefulSets, Jobs and scale steps are expanded to, and that a simulated run holds at once and creates in all (`N`; snapshot.Options.MaxPods)")
	noCompletion(cmd, "max-input-bytes", "max-objects", "max-object-bytes", "max-pods")
}

// addDurationLimitFlag adds --max-duration, the longest run simulated.
func addDurationLimitFlag(cmd *cobra.Command, o *limitOptions) {
	cmd.Flags().DurationVar(&o.duration, "max-duration", simulator.DefaultMaxDuration, "the longest `DURATION` of virtual time a run simulates, a leap year by default (simulator.Config.MaxDuration)")
	noCompletion(cmd, "max-duration")
}

// check refuses limits under 1: a limit is raised or lowered, never turned
// off (0 would mean the default to the library). withDuration checks
// --max-duration too, for the commands that have it.
func (o limitOptions) check(withDuration bool) error {
	limits := []struct {
		flag  string
		value int64
	}{{"max-input-bytes", o.inputBytes}, {"max-objects", int64(o.objects)}, {"max-object-bytes", o.objectBytes}, {"max-pods", int64(o.pods)}}
	if withDuration && o.duration < 1 {
		return fmt.Errorf("%w: --max-duration %v: want more than 0", errUsage, o.duration)
	}
	for _, l := range limits {
		if l.value < 1 {
			return fmt.Errorf("%w: --%s %d: want at least 1", errUsage, l.flag, l.value)
		}
	}
	return nil
}

// manifests are the limits manifests are read within.
func (o limitOptions) manifests() manifests.Limits {
	return manifests.Limits{Bytes: o.inputBytes, Objects: o.objects, ObjectBytes: o.objectBytes}
}

// maxInputBytes is the most read from standard input.
func (o limitOptions) maxInputBytes() int64 {
	if o.inputBytes > 0 {
		return o.inputBytes
	}
	return manifests.MaxStreamBytes
}

// simulatorConfig is a run's Config with the limits set.
func (o limitOptions) simulatorConfig() simulator.Config {
	return simulator.Config{MaxDuration: o.duration, Limits: o.manifests(), Snapshot: snapshot.Options{MaxPods: o.pods}}
}
