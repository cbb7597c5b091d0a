package sweep

import (
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/simulator"
)

// Result is a sweep's outcome: every run's summary in run order, and one
// row per scenario × variant. It marshals to JSON deterministically.
type Result struct {
	Name string `json:"name,omitempty"`
	// Sweep identifies the sweep (its file and scenarios): only parts of
	// the same sweep merge.
	Sweep string `json:"sweep"`
	// Total is how many runs the whole sweep has.
	Total int `json:"total"`
	// Shard is set on a partial result: the runs of one shard.
	Shard *Shard      `json:"shard,omitempty"`
	Runs  []RunResult `json:"runs"`
	Rows  []Row       `json:"rows"`
}

// Failed counts the runs that failed.
func (r *Result) Failed() int {
	n := 0
	for _, run := range r.Runs {
		if run.Error != "" {
			n++
		}
	}
	return n
}

// RunResult is one run's outcome: its summary, or why it failed.
type RunResult struct {
	Index    int      `json:"index"`
	Scenario string   `json:"scenario"`
	Variant  string   `json:"variant"`
	Seed     uint64   `json:"seed"`
	Summary  *Summary `json:"summary,omitempty"`
	Error    string   `json:"error,omitempty"`
	// Result is the whole simulator result, kept with Options.KeepResults.
	Result *simulator.Result `json:"result,omitempty"`
}

// Summary is what a sweep keeps of a simulator.Result.
type Summary struct {
	TotalCost  float64 `json:"totalCost"`
	PeakNodes  int     `json:"peakNodes"`
	FinalNodes int     `json:"finalNodes"`
	// PendingP50 … PendingMax are the run's pending-time percentiles;
	// StillPending the pods pending at the end.
	PendingP50   metav1.Duration `json:"pendingP50"`
	PendingP90   metav1.Duration `json:"pendingP90"`
	PendingP99   metav1.Duration `json:"pendingP99"`
	PendingMax   metav1.Duration `json:"pendingMax"`
	StillPending int             `json:"stillPending"`
	Launches     int             `json:"launches"`
	// Disruptions counts deleted nodes, by every method (expiration and
	// interruption included).
	Disruptions int `json:"disruptions"`
}

func summarize(r *simulator.Result) Summary {
	s := Summary{TotalCost: r.TotalCost, FinalNodes: r.Final.Nodes, PeakNodes: r.Final.Nodes,
		PendingP50: r.PendingTime.P50, PendingP90: r.PendingTime.P90, PendingP99: r.PendingTime.P99,
		PendingMax: r.PendingTime.Max, StillPending: r.PendingTime.StillPending, Launches: r.Launches}
	for _, sample := range r.Samples {
		s.PeakNodes = max(s.PeakNodes, sample.Nodes)
	}
	for _, n := range r.DisruptionsByMethod {
		s.Disruptions += n
	}
	return s
}

// Row is one scenario × variant over its seeds.
type Row struct {
	Scenario string `json:"scenario"`
	Variant  string `json:"variant"`
	// Runs counts the seeds run, Failed those that failed; the figures are
	// over the others.
	Runs   int `json:"runs"`
	Failed int `json:"failed"`
	// CostMean, CostMin and CostMax are the total cost over the seeds.
	CostMean float64 `json:"costMean"`
	CostMin  float64 `json:"costMin"`
	CostMax  float64 `json:"costMax"`
	// PeakNodes is the highest peak of any seed.
	PeakNodes int `json:"peakNodes"`
	// PendingP50 and PendingP99 are the seeds' percentiles, averaged.
	PendingP50 metav1.Duration `json:"pendingP50"`
	PendingP99 metav1.Duration `json:"pendingP99"`
	// Disruptions is the mean number of nodes disrupted.
	Disruptions float64 `json:"disruptions"`
	// Best marks the scenario's cheapest variant by mean cost (ties to the
	// earlier variant), among those with no failed run.
	Best bool `json:"best,omitempty"`
	// Error is the first failed run's error.
	Error string `json:"error,omitempty"`
}

// rows aggregates the runs into rows, in run order.
func rows(runs []RunResult) []Row {
	type key struct{ scenario, variant string }
	var order []key
	byKey := map[key][]RunResult{}
	for _, r := range runs {
		k := key{r.Scenario, r.Variant}
		if _, seen := byKey[k]; !seen {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	out := make([]Row, 0, len(order))
	for _, k := range order {
		out = append(out, row(k.scenario, k.variant, byKey[k]))
	}
	markBest(out)
	return out
}

func row(scenario, variant string, runs []RunResult) Row {
	r := Row{Scenario: scenario, Variant: variant, Runs: len(runs), CostMin: math.Inf(1)}
	var p50, p99 time.Duration
	ok := 0
	for _, run := range runs {
		if run.Summary == nil {
			r.Failed++
			if r.Error == "" {
				r.Error = run.Error
			}
			continue
		}
		s := run.Summary
		ok++
		r.CostMean += s.TotalCost
		r.CostMin, r.CostMax = min(r.CostMin, s.TotalCost), max(r.CostMax, s.TotalCost)
		r.PeakNodes = max(r.PeakNodes, s.PeakNodes)
		p50 += s.PendingP50.Duration
		p99 += s.PendingP99.Duration
		r.Disruptions += float64(s.Disruptions)
	}
	if ok == 0 {
		r.CostMin = 0
		return r
	}
	r.CostMean = round4(r.CostMean / float64(ok))
	r.CostMin, r.CostMax = round4(r.CostMin), round4(r.CostMax)
	r.PendingP50 = metav1.Duration{Duration: (p50 / time.Duration(ok)).Round(time.Second)}
	r.PendingP99 = metav1.Duration{Duration: (p99 / time.Duration(ok)).Round(time.Second)}
	r.Disruptions = math.Round(r.Disruptions/float64(ok)*100) / 100
	return r
}

// markBest marks each scenario's cheapest variant with no failed run.
func markBest(rows []Row) {
	best := map[string]int{}
	for i, r := range rows {
		if r.Failed > 0 || r.Runs == 0 {
			continue
		}
		if j, ok := best[r.Scenario]; !ok || r.CostMean < rows[j].CostMean {
			best[r.Scenario] = i
		}
	}
	for _, i := range best {
		rows[i].Best = true
	}
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// Merge joins the partial results of one sweep's shards into the result the
// whole sweep gives. Every run must come exactly once, from parts of the
// same sweep; MergeParts says which part is at fault, here "part 1" to
// "part N".
func Merge(parts ...*Result) (*Result, error) {
	named := make([]Part, len(parts))
	for i, p := range parts {
		named[i] = Part{Name: fmt.Sprintf("part %d", i+1), Result: p}
	}
	return MergeParts(named)
}
