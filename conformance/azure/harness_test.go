package azure

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite README.md from specs/ and the cases' results")

// T is what a case reports to: failures are recorded, and Fatalf ends
// the case.
type T struct {
	failed bool
	msgs   []string
}

// Helper is there so that helpers read like testing helpers.
func (t *T) Helper() {}

// Errorf records a failure.
func (t *T) Errorf(format string, args ...any) {
	t.failed = true
	t.msgs = append(t.msgs, fmt.Sprintf(format, args...))
}

// Fatalf records a failure and ends the case.
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	runtime.Goexit()
}

// conformanceCase translates one spec; Fails, when set, says why karpsim
// is known to differ, and the README shows the case as failing.
type conformanceCase struct {
	Name  string
	Run   func(t *T)
	Fails string
}

var registry = map[string]conformanceCase{}

// register adds cases under group, as group/name.
func register(group string, cases ...conformanceCase) bool {
	for _, c := range cases {
		id := group + "/" + c.Name
		if _, dup := registry[id]; dup {
			panic("two cases named " + id)
		}
		registry[id] = c
	}
	return true
}

// outcome is a case's result.
type outcome struct {
	failed bool
	msgs   []string
}

func runCase(c conformanceCase) outcome {
	t := &T{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				t.failed = true
				t.msgs = append(t.msgs, fmt.Sprintf("panic: %v", r))
			}
		}()
		c.Run(t)
	}()
	<-done
	return outcome{failed: t.failed, msgs: t.msgs}
}

var allResults = sync.OnceValue(func() map[string]outcome {
	out := map[string]outcome{}
	for id, c := range registry {
		out[id] = runCase(c)
	}
	return out
})

func caseIDs() []string {
	ids := make([]string, 0, len(registry))
	for id := range registry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// TestSpecs runs every case. A case with Fails must fail (else its note is
// stale); any other case must pass.
func TestSpecs(t *testing.T) {
	res := allResults()
	for _, id := range caseIDs() {
		c := registry[id]
		t.Run(id, func(t *testing.T) {
			out := res[id]
			switch {
			case c.Fails != "" && out.failed:
				t.Skipf("known failure (%s): %s", c.Fails, strings.Join(out.msgs, "; "))
			case c.Fails != "":
				t.Errorf("passes although it is recorded as failing (%s): remove Fails and rerun go test ./conformance/azure -run TestREADME -update", c.Fails)
			case out.failed:
				for _, m := range out.msgs {
					t.Error(m)
				}
			}
		})
	}
}

// spec is one It or Entry of an upstream file, as specs/*.yaml lists it.
type spec struct {
	Line            int    `json:"line"`
	What            string `json:"what"`
	Test            string `json:"test,omitempty"`
	NotApplicable   string `json:"notApplicable,omitempty"`
	SkippedUpstream string `json:"skippedUpstream,omitempty"`
	Note            string `json:"note,omitempty"`
}

type inventory struct {
	Repo     string `json:"repo"`
	Upstream string `json:"upstream"`
	Tag      string `json:"tag"`
	Commit   string `json:"commit"`
	Specs    []spec `json:"specs"`
}

func readInventories(t *testing.T) []inventory {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("specs", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no inventories under specs/: %v", err)
	}
	slices.Sort(files)
	var out []inventory
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var inv inventory
		if err := yaml.UnmarshalStrict(b, &inv); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, s := range inv.Specs {
			set := 0
			for _, v := range []string{s.Test, s.NotApplicable, s.SkippedUpstream} {
				if v != "" {
					set++
				}
			}
			switch {
			case s.Line <= 0 || s.What == "":
				t.Errorf("%s: spec %d: line and what are required", f, i)
			case set > 1:
				t.Errorf("%s:%d: a spec is translated, not applicable or skipped upstream, not several", f, s.Line)
			case set == 0 && s.Note == "":
				t.Errorf("%s:%d: a spec not yet translated needs a note saying why", f, s.Line)
			}
		}
		out = append(out, inv)
	}
	return out
}

// Statuses of a spec in the README.
const (
	statusPass          = "pass"
	statusFail          = "fail"
	statusNotApplicable = "not applicable"
	statusNotYet        = "not yet"
	statusSkipped       = "skipped upstream"
)

type tally struct{ specs, notApplicable, skipped, translated, pass, fail, notYet int }

func (t *tally) add(status string) {
	t.specs++
	switch status {
	case statusNotApplicable:
		t.notApplicable++
	case statusSkipped:
		t.skipped++
	case statusNotYet:
		t.notYet++
	case statusPass:
		t.translated++
		t.pass++
	case statusFail:
		t.translated++
		t.fail++
	}
}

func (t tally) row(name string) string {
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", name, t.specs, t.notApplicable, t.skipped,
		t.specs-t.notApplicable-t.skipped, t.translated, t.pass, t.fail, t.notYet)
}

func TestREADME(t *testing.T) {
	invs := readInventories(t)
	res := allResults()
	used := map[string]bool{}
	var total tally
	var body, totals bytes.Buffer
	for _, inv := range invs {
		var tl tally
		fmt.Fprintf(&body, "\n## `%s`\n\n| line | what the spec checks | our test | status | note |\n| ---: | --- | --- | --- | --- |\n", inv.Upstream)
		for _, s := range inv.Specs {
			status, note, test := statusNotYet, s.Note, ""
			switch {
			case s.NotApplicable != "":
				status, note = statusNotApplicable, s.NotApplicable
			case s.SkippedUpstream != "":
				status, note = statusSkipped, s.SkippedUpstream
			case s.Test != "":
				out, ok := res[s.Test]
				if !ok {
					t.Errorf("%s:%d: no case %q is registered", inv.Upstream, s.Line, s.Test)
					continue
				}
				used[s.Test] = true
				test = "`" + s.Test + "`"
				status = statusPass
				if out.failed {
					status, note = statusFail, registry[s.Test].Fails
					if note == "" {
						note = "unexplained failure: see go test ./conformance/azure -run TestSpecs/" + s.Test
					}
				}
			}
			tl.add(status)
			link := fmt.Sprintf("https://github.com/%s/blob/%s/%s#L%d", inv.Repo, inv.Commit, inv.Upstream, s.Line)
			fmt.Fprintf(&body, "| [%d](%s) | %s | %s | %s | %s |\n", s.Line, link, s.What, test, status, note)
		}
		totals.WriteString(tl.row("`" + inv.Upstream + "`"))
		total.specs += tl.specs
		total.notApplicable += tl.notApplicable
		total.skipped += tl.skipped
		total.translated += tl.translated
		total.pass += tl.pass
		total.fail += tl.fail
		total.notYet += tl.notYet
	}
	for _, id := range caseIDs() {
		if !used[id] {
			t.Errorf("case %s translates no spec: name it in specs/", id)
		}
	}
	var readme bytes.Buffer
	readme.WriteString(`# Conformance with Karpenter's Azure provider

Generated by ` + "`go test ./conformance/azure -run TestREADME -update`" + ` from ` + "`specs/`" + ` and the results of the cases; do not edit.

Each row is one ` + "`It`" + ` or ` + "`Entry`" + ` of Azure/karpenter-provider-azure at tag ` + "`" + invs[0].Tag + "`" + ` (commit
` + "`" + invs[0].Commit + "`" + `), described in our words, from the suites that decide what a launch picks or whether a
node has drifted: the instance-type suites (the catalog), the cloud provider's Create and drift suites, the instance
provider's, the node class hash controller's, and the end-to-end scheduling suite. The two label tables of the
instance-type suite build their entries from one list; each entry is a row, on the line of its list item; a spec
function run under several settings is one row. Status, with the same rules as the AWS table (../README.md): **pass**
or **fail** (the case ` + "`TestSpecs/<test>`" + ` in this package, run by the generator), **not applicable** (the spec
checks what a launch sends to Azure, or inputs karpsim is not given; the note says what), **skipped upstream** (pending
upstream), **not yet** (not translated; the note says what is missing).

The unit suites' cases run package azure's model of the southcentralus resource SKU table (the suites' fake region) and
westcentralus (their region without zones) through karpsim's scheduler, with the sizes of the provider's resource SKU
tables only: the fake API lists no others, so the sizes package azure adds from Cluster Autoscaler's table (derived
facts) are left out. The launch-error and quota cases answer a launch with one of Azure's errors, let
azure.UnavailableOfferings mark what the provider marks, and provision again; they price spot as on-demand, as the
suites' pricing provider does until it fetches spot prices. The drift cases run the provider's checks through the
provider seam (provider.Azure.Drift). The end-to-end cases run the whole catalog of the suite's default region, westus2.

Suites left out, as they decide no launch and no drift: the AKS machine API suites (` + "`pkg/cloudprovider/suite_aksmachineapi_*`" + `,
` + "`pkg/providers/instance/aksmachine*`" + `: the provider's other provisioning mode, which karpsim does not model; its drift is
the ClusterConfigDrift of docs/azure.md), the node class status controllers (` + "`pkg/controllers/nodeclass/status`" + `:
they write the status.images and status.kubernetesVersion that karpsim reads from the AKSNodeClass it is given), the
CRD validation suites (` + "`pkg/apis`" + `: apis/aksnodeclass_validation.go follows the CRD), the offerings' error-code
parsers (` + "`pkg/providers/instance/offerings`" + `: karpsim takes the error kind, azure.LaunchError), the quota and pricing
controllers (` + "`pkg/controllers/quota`" + `, ` + "`pkg/providers/pricing`" + `: they read the subscription's quotas and Azure's prices,
inputs karpsim takes as given: the embedded prices, and quota errors as launch errors), the allocation strategy's plain Go
tests (` + "`pkg/providers/allocationstrategy`" + `: no ` + "`It`" + `s; the ranking they test, price, then spot, then zonal before
regional, is what the zones and launch-error rows check), the controllers that act on running VMs (in-place update,
garbage collection, termination), and the other end-to-end suites (drift, consolidation, and the rest: Karpenter core's disruption on a live cluster, whose decisions the
core table covers, or features of the VM karpsim does not model).

## Totals

| upstream file | specs | not applicable | skipped upstream | applicable | translated | pass | fail | not yet |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
`)
	readme.Write(totals.Bytes())
	readme.WriteString(total.row("**all**"))
	readme.Write(body.Bytes())
	if *update {
		if err := os.WriteFile("README.md", readme.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, readme.Bytes()) {
		t.Error("README.md is not what the specs and the cases' results give: run go test ./conformance/azure -run TestREADME -update and review the diff")
	}
}
