package advisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/repair"
	"github.com/karpsim/karpsim/snapshot"
)

// TestEvaluateAgreesWithTheDisruptGoldens evaluates every disruption golden
// (testdata/disrupt) as the advisor would, at the time `karpsim disrupt`
// takes (its args file's --at, else the input's latest timestamp): the command and every node's
// verdict are the golden's, every verdict that disrupts nothing falls in a
// named class (never BlockerOther), and each node's price is its offering's
// in the embedded catalog, looked up here by type, zone and capacity type.
func TestEvaluateAgreesWithTheDisruptGoldens(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "disrupt", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	catalog, err := instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{})
	require.NoError(t, err)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			set, err := manifests.Load(filepath.Join(dir, "input.yaml"))
			require.NoError(t, err)
			_, at := snapshot.TimeRange(set)
			var opts Options
			if args, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
				fields := strings.Fields(string(args))
				require.Zero(t, len(fields)%2, "args holds flag-value pairs")
				for i := 0; i < len(fields); i += 2 {
					switch flag, value := fields[i], fields[i+1]; flag {
					case "--at":
						at, err = time.Parse(time.RFC3339, value)
						require.NoError(t, err)
					case "--simulation-cost":
						cost, err := time.ParseDuration(value)
						require.NoError(t, err)
						opts.Timeouts = &consolidation.Timeouts{SimulationCost: cost}
					case "--feature-gates":
						require.Equal(t, "NodeRepair=true", value, "the one gate this test maps to the advisor's options")
						m, err := repair.Compile((&provider.AWS{}).RepairPolicies())
						require.NoError(t, err)
						opts.Disruption.NodeRepair = m
					default:
						t.Fatalf("args: %s is no flag this test maps to the advisor's options", flag)
					}
				}
			}
			a, err := Evaluate(set, opts, at)
			require.NoError(t, err)
			data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
			require.NoError(t, err)
			var want struct {
				Commands   []consolidation.Command          `json:"commands"`
				Candidates []consolidation.CandidateVerdict `json:"candidates"`
			}
			require.NoError(t, json.Unmarshal(data, &want))
			assert.Equal(t, len(want.Commands), len(a.Disruption.Commands))
			for i := range min(len(want.Commands), len(a.Disruption.Commands)) {
				assert.Equal(t, want.Commands[i].Method, a.Disruption.Commands[i].Method)
				assert.Equal(t, want.Commands[i].Delete, a.Disruption.Commands[i].Delete)
			}
			rows := map[string]NodeRow{}
			for _, r := range a.Nodes {
				rows[r.Name] = r
			}
			require.Len(t, rows, len(want.Candidates))
			total := 0.0
			for _, v := range want.Candidates {
				r := rows[v.Node]
				assert.Equal(t, v.Reason, r.Reason, v.Node)
				assert.Equal(t, v.Disruptable, r.Disruptable, v.Node)
				if !r.Disruptable {
					assert.NotEqual(t, BlockerOther, r.Blocker, "%s: %q has no class", v.Node, r.Reason)
				} else {
					assert.NotEmpty(t, r.Method, v.Node)
				}
				total += r.PerHour
			}
			expected := 0.0
			for _, n := range set.Nodes {
				if n.Labels[apis.LabelNodePool] == "" {
					continue
				}
				it, ok := catalog.Get(n.Labels[apis.LabelInstanceType])
				if !ok {
					continue
				}
				for _, o := range it.Offerings {
					if o.Zone == n.Labels[apis.LabelTopologyZone] && o.CapacityType == n.Labels[apis.LabelCapacityType] {
						expected += o.Price
						assert.InDelta(t, o.Price, rows[n.Name].PerHour, 1e-9, n.Name)
						break
					}
				}
			}
			if len(set.NodeOverlays) == 0 {
				assert.InDelta(t, expected, a.PerHour, 1e-6)
			}
			assert.InDelta(t, total, a.PerHour, 1e-6)
		})
	}
}

func TestBlockerClasses(t *testing.T) {
	for reason, class := range map[string]string{
		"pod shop/batch-1 has the karpenter.sh/do-not-disrupt annotation (\"true\")":                                             BlockerDoNotDisrupt,
		"has the karpenter.sh/do-not-disrupt: \"true\" annotation":                                                               BlockerDoNotDisrupt,
		"blocked by PDB shop/ledger (0 disruptions allowed) of pod shop/ledger-0":                                                BlockerPDB,
		"budget of NodePool default allows no Underutilized disruption: 0 nodes (budget 0)":                                      BlockerBudget,
		"consolidateAfter 10m not elapsed (4m left)":                                                                             BlockerConsolidateAfter,
		"NodePool a has consolidation disabled (consolidateAfter: Never)":                                                        BlockerPolicy,
		"NodePool a has consolidation policy WhenEmpty and the node is not empty":                                                BlockerPolicy,
		"single-node: replacement not cheaper: $0.1 (m5.large at its worst launch price) vs $0.1":                                BlockerNoCheaper,
		"single-node: would need 2 new nodes cheaper than $0.19/h, and consolidation launches at most one; budget of NodePool x": BlockerNoCheaper,
		"pod a/b would not schedule: it fits neither on another node nor on any instance type":                                   BlockerPodsDoNotFit,
		"not managed by Karpenter (no NodeClaim)":                                                                                BlockerNotManaged,
		"not initialized": BlockerLifecycle,
		"not evaluated: drift found a command first": BlockerOtherCommandFirst,
		"empty: left to emptiness":                   BlockerEmpty,
		"no method applies":                          BlockerNone,
		"NodePool a is at its node limit (3) and cannot launch a replacement first":    BlockerNodeLimit,
		"something karpsim has never said":                                             BlockerOther,
		"holds only 1 capacity-buffer pod: kept as the buffer's room":                  BlockerCapacityBuffer,
		"nominated for a pending pod (20s left)":                                       BlockerLifecycle,
		"Balanced NodePool a: score 0.100 is below 0.500 (saves $0.1 of $1/h for 1.0)": BlockerPolicy,
	} {
		assert.Equal(t, class, blockerOf(reason), reason)
	}
}
