package snapshot

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/manifests"
)

// TestFromSetForDisruptionIsBoth: one run of the stages gives what FromSet
// and ForDisruption give apart (or the same error), with and without DRA,
// at the scenario's latest time, on every scenario of testdata/disrupt and
// those of testdata/plan with what either view changes after the stages
// (capacity buffers, devices, volumes, NodeOverlays): so building one view
// leaves the other as it would be alone.
func TestFromSetForDisruptionIsBoth(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("..", "testdata", "disrupt", "*", "input.yaml"))
	require.NoError(t, err)
	for _, name := range []string{"capacity-buffer", "dra-gpu", "node-overlay", "volume-topology"} {
		inputs = append(inputs, filepath.Join("..", "testdata", "plan", name, "input.yaml"))
	}
	sets := map[string]*manifests.Set{"terminating-and-deleting": decode(t, disruptionSet(t)...)}
	for _, path := range inputs {
		set, err := manifests.Load(path)
		if err != nil {
			continue // scenarios of bad input manifests refuses
		}
		sets[filepath.Base(filepath.Dir(path))] = set
	}
	compared := 0
	for _, setName := range slices.Sorted(maps.Keys(sets)) {
		set := sets[setName]
		_, at := TimeRange(set)
		for _, opts := range []Options{{}, {DRA: true}} {
			name := setName
			if opts.DRA {
				name += "/dra"
			}
			t.Run(name, func(t *testing.T) {
				snap, snapErr := FromSet(set, opts)
				d, dErr := ForDisruption(set, opts, at)
				bothSnap, bothD, err := FromSetForDisruption(set, opts, at)
				if snapErr != nil || dErr != nil {
					require.Error(t, err)
					if snapErr != nil {
						assert.Equal(t, snapErr.Error(), err.Error())
					} else {
						assert.Equal(t, dErr.Error(), err.Error())
					}
					return
				}
				require.NoError(t, err)
				// Translators hold compiled selectors (funcs, never deeply
				// equal): each path has its own; compare what they decide.
				assert.Equal(t, snap.Translator != nil, bothSnap.Translator != nil)
				assert.Equal(t, d.Devices() != nil, bothD.Devices() != nil)
				snap.Translator, bothSnap.Translator, d.Translator, bothD.Translator = nil, nil, nil, nil
				assert.Equal(t, snap, bothSnap, "the Snapshot")
				assert.Equal(t, d, bothD, "the disruption view")
				compared++
			})
		}
	}
	assert.GreaterOrEqual(t, compared, 30)
}

func TestFromSetForDisruptionNilSet(t *testing.T) {
	_, _, err := FromSetForDisruption(nil, Options{}, time.Time{})
	assert.ErrorContains(t, err, "nil Set")
}
