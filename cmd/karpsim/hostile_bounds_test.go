package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// boundsHostileCases are the bad inputs of issue 25's items 3 and 4: files
// a sweep or scenario names outside its folder, kinds --emit-job must not
// pack, errors and work that must stay bounded, and times that would
// saturate a duration.
func boundsHostileCases() []hostileCase {
	scenario := hostileScenario("duration: 1h\n")
	emitJob := func(sweep string) []string {
		return []string{"sweep", "-f", "DIR/" + sweep, "--emit-job", "--image", "example.com/karpsim:v1"}
	}
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: aws, namespace: default}\nstringData: {key: hunter2}\n"
	disruptInput := func(t *testing.T, dir string) {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "disrupt", "empty-node", "input.yaml"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cluster.yaml"), data, 0o644))
	}
	return []hostileCase{
		// Path traversal: a sweep naming a scenario above its folder.
		{name: "sweep scenario ../", files: map[string]string{"s.yaml": scenario, "sw/sweep.yaml": "scenarios: [../s.yaml]\n"},
			args: emitJob("sw/sweep.yaml"), want: []string{"DIR/sw/sweep.yaml: scenarios[0]: path leaves the folder: ../s.yaml is outside the folder DIR/sw"}},
		// Path traversal: an absolute path, which also breaks inside the Job's pod.
		{name: "sweep scenario by absolute path", files: map[string]string{"s.yaml": scenario, "sw/sweep.yaml": "scenarios: [DIR/s.yaml]\n"},
			args: []string{"sweep", "-f", "DIR/sw/sweep.yaml"}, want: []string{"DIR/sw/sweep.yaml: scenarios[0]", "DIR/s.yaml is an absolute path"}},
		// Path traversal through a symbolic link inside the folder.
		{name: "sweep scenario through a link out", files: map[string]string{"s.yaml": scenario, "sw/sweep.yaml": "scenarios: [link.yaml]\n"},
			generate: func(t *testing.T, dir string) {
				require.NoError(t, os.Symlink(filepath.Join(dir, "s.yaml"), filepath.Join(dir, "sw", "link.yaml")))
			},
			args: emitJob("sw/sweep.yaml"), want: []string{"DIR/sw/sweep.yaml: scenarios[0]", "link.yaml resolves through a symbolic link to DIR/s.yaml, outside the folder DIR/sw"}},
		// Path traversal: a folder of scenarios holding a link out.
		{name: "sweep scenario folder with a link out", files: map[string]string{"s.yaml": scenario, "sw/sweep.yaml": "scenarios: [scenarios/]\n", "sw/scenarios/ok.yaml": scenario},
			generate: func(t *testing.T, dir string) {
				require.NoError(t, os.Symlink(filepath.Join(dir, "s.yaml"), filepath.Join(dir, "sw", "scenarios", "out.yaml")))
			},
			args: []string{"sweep", "-f", "DIR/sw/sweep.yaml"}, want: []string{"DIR/sw/sweep.yaml: scenarios[0]", "out.yaml resolves through a symbolic link to DIR/s.yaml"}},
		// Path traversal: a variant's catalog above the sweep's folder.
		{name: "sweep catalog ../", files: map[string]string{"sw/s.yaml": scenario, "cat.json": "[]", "sw/sweep.yaml": "scenarios: [s.yaml]\nvariants:\n- {name: small, catalog: ../cat.json}\n"},
			args: emitJob("sw/sweep.yaml"), want: []string{"DIR/sw/sweep.yaml: variant small: catalog", "../cat.json is outside the folder DIR/sw"}},
		// Path traversal: a scenario's manifests above its folder.
		{name: "scenario manifests ../", files: map[string]string{"m.yaml": hostileDeployment("1"), "sc/s.yaml": "manifests: [../m.yaml]\n" + scenario},
			args: []string{"simulate", "-f", "DIR/sc/s.yaml"}, want: []string{"DIR/sc/s.yaml: invalid scenario: manifests[0]: path leaves the folder: ../m.yaml is outside the folder DIR/sc"}},
		// Path traversal: a scenario's manifests folder holding a link out.
		{name: "scenario manifests folder with a link out", files: map[string]string{"m.yaml": hostileDeployment("1"), "sc/s.yaml": "manifests: [cluster/]\n" + scenario, "sc/cluster/ok.yaml": hostileDeployment("0")},
			generate: func(t *testing.T, dir string) {
				require.NoError(t, os.Symlink(filepath.Join(dir, "m.yaml"), filepath.Join(dir, "sc", "cluster", "out.yaml")))
			},
			args: []string{"compare", "-f", "DIR/sc/s.yaml"}, want: []string{"DIR/sc/s.yaml: invalid scenario: manifests[0]", "cluster/out.yaml resolves through a symbolic link to DIR/m.yaml"}},
		// Path traversal: a scenario on standard input naming a file by absolute path.
		{name: "scenario on stdin naming /etc/passwd", stdin: "manifests: [/etc/passwd]\n" + scenario, args: []string{"simulate", "-f", "-"},
			want: []string{"<stdin>: invalid scenario: manifests[0]: path leaves the folder: /etc/passwd is an absolute path"}},
		// Data exfiltration: a Secret beside the manifests a sweep packs.
		{name: "emit-job of a Secret", files: map[string]string{"sw/s.yaml": "manifests: [m/]\n" + scenario, "sw/m/secret.yaml": secret, "sw/sweep.yaml": "scenarios: [s.yaml]\n"},
			args: emitJob("sw/sweep.yaml"), want: []string{"DIR/sw/sweep.yaml: --emit-job: not packed into the ConfigMap: DIR/sw/m/secret.yaml:1: Secret/default/aws"}},
		// Data exfiltration: a Secret in a scenario's inline manifests.
		{name: "emit-job of an inline Secret", files: map[string]string{"sw/s.yaml": strings.Replace(scenario, "inline: |\n", "inline: |\n"+indent(secret, "  ")+"  ---\n", 1), "sw/sweep.yaml": "scenarios: [s.yaml]\n"},
			args: emitJob("sw/sweep.yaml"), want: []string{"DIR/sw/sweep.yaml: --emit-job", "DIR/sw/s.yaml: inline:1: Secret/default/aws"}},
		// Unbounded errors: one mistake repeated 199,999 times in a List (in
		// JSON here, decoded in a second; manifests' TestListOfEmptyItems
		// holds the YAML form, which takes seconds of CPU, to the same bound).
		{name: "List of 199,999 empty items", generate: func(t *testing.T, dir string) {
			items := strings.Repeat("{},", 199_998) + "{}"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "l.json"), []byte(`{"apiVersion": "v1", "kind": "List", "items": [`+items+"]}"), 0o644))
		}, args: []string{"plan", "-f", "DIR/l.json"}, want: []string{"DIR/l.json: document 1 (line 1) item 20: no kind", "\n... and 199,979 more problems"}},
		// Unbounded errors: a scenario with 5,000 bad steps.
		{name: "scenario of 5,000 bad steps", files: map[string]string{"s.yaml": hostileScenario("duration: 1h\nsteps:\n" + strings.Repeat("- {at: -1m, scale: {deployment: web, replicas: 1}}\n", 5000))},
			args: []string{"simulate", "-f", "DIR/s.yaml"}, want: []string{"DIR/s.yaml:5: invalid scenario: steps[0] (scale web)", "at -1m0s is negative\n... and 4,980 more problems"}},
		// Unbounded errors: a sweep with 5,000 bad variants.
		{name: "sweep of 5,000 bad variants", files: map[string]string{"s.yaml": scenario, "sweep.yaml": "scenarios: [s.yaml]\nvariants:\n" + strings.Repeat("- {name: v, workloadScale: -1}\n", 5000)},
			args: []string{"sweep", "-f", "DIR/sweep.yaml"}, want: []string{"DIR/sweep.yaml:3: invalid sweep: variants[0].workloadScale", "\n... and 9,979 more problems"}},
		// Unbounded work: arrivals for 1,000 h whose pods outlive the run.
		{name: "arrivals of 3,600 an hour for 1,000 h", files: map[string]string{"s.yaml": hostileScenario("duration: 1000h\nsteps:\n- {at: 0s, arrivals: {deployment: web, perHour: 3600, meanLifetime: 2000h}}\n")},
			args: []string{"simulate", "-f", "DIR/s.yaml", "--report", "DIR/r.html"}, outputs: []string{"r.html"},
			want: []string{"DIR/s.yaml: invalid scenario: steps[0]: arrivals of 3600 an hour over 1000h0m0s", "about 3,600,000 pods alive at once", "more than 200,000", "--max-pods"}},
		// Unbounded work: short-lived arrivals that still create more pods than --max-pods.
		{name: "arrivals past --max-pods", files: map[string]string{"s.yaml": hostileScenario("duration: 10h\nsteps:\n- {at: 0s, arrivals: {deployment: web, perHour: 100, meanLifetime: 1m}}\n")},
			args: []string{"compare", "-f", "DIR/s.yaml", "--max-pods", "500"}, want: []string{"DIR/s.yaml (karpenter): invalid scenario: steps[0]", "about 1,000 pods created", "more than 500", "--max-pods"}},
		// Unbounded work: a traffic curve flapping every second.
		{name: "traffic flapping every second", files: map[string]string{"s.yaml": hostileScenario("duration: 8h\nsteps:\n- {at: 0s, traffic: {deployment: web, every: 1s, replicas: [0, 50]}}\n")},
			args: []string{"simulate", "-f", "DIR/s.yaml"}, want: []string{"DIR/s.yaml: invalid scenario: steps[0]: traffic every 1s over 8h0m0s", "pods created", "--max-pods"}},
		// Unbounded work: step firings no pod limit catches.
		{name: "traffic every second for a year", files: map[string]string{"s.yaml": hostileScenario("duration: 8000h\nsteps:\n- {at: 0s, traffic: {deployment: web, every: 1s, replicas: [1]}}\n")},
			args: []string{"simulate", "-f", "DIR/s.yaml"}, want: []string{"DIR/s.yaml: invalid scenario: steps[0]: traffic every 1s", "about 28,800,001 firings", "more than 10,000,000"}},
		// Unbounded work: a sweep refuses it when it loads the scenario, before any run.
		{name: "sweep of an arrivals flood", files: map[string]string{"s.yaml": hostileScenario("duration: 1000h\nsteps:\n- {at: 0s, arrivals: {deployment: web, perHour: 3600, meanLifetime: 2000h}}\n"), "sweep.yaml": "scenarios: [s.yaml]\n"},
			args: []string{"sweep", "-f", "DIR/sweep.yaml"}, want: []string{"DIR/s.yaml: invalid scenario: steps[0]", "--max-pods"}},
		// Saturated durations: a scenario whose end RFC 3339 cannot print.
		{name: "scenario ending after the year 9999", files: map[string]string{"s.yaml": hostileScenario("duration: 48h\nstart: \"9999-12-31T00:00:00Z\"\n")},
			args: []string{"simulate", "-f", "DIR/s.yaml", "-o", "json"}, want: []string{"DIR/s.yaml: invalid scenario: start 9999-12-31T00:00:00Z plus duration 48h0m0s ends after the year 9999"}},
		// Saturated durations: a time before the objects existed.
		{name: "disrupt --at year 1", generate: disruptInput, args: []string{"disrupt", "-f", "DIR/cluster.yaml", "--at", "0001-01-01T00:00:00Z"},
			want: []string{"--at 0001-01-01T00:00:00Z is before the objects existed: the input's earliest timestamp is 2026-"}},
		// Saturated durations: a time centuries after the objects.
		{name: "disrupt --at year 9999", generate: disruptInput, args: []string{"explain", "node", "x", "-f", "DIR/cluster.yaml", "--at", "9999-12-31T23:59:59Z"},
			want: []string{"--at 9999-12-31T23:59:59Z is more than 100 years after the input's earliest timestamp"}},
		// Saturated durations: input whose own timestamps lie millennia apart.
		{name: "disrupt of timestamps 8,000 years apart", generate: func(t *testing.T, dir string) {
			disruptInput(t, dir)
			data, err := os.ReadFile(filepath.Join(dir, "cluster.yaml"))
			require.NoError(t, err)
			data = []byte(strings.Replace(string(data), `creationTimestamp: "2026-01-30T08:00:00Z"`, `creationTimestamp: "0001-01-30T08:00:00Z"`, 1))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cluster.yaml"), data, 0o644))
		}, args: []string{"disrupt", "-f", "DIR/cluster.yaml"}, want: []string{"the input's timestamps run from 0001-01-30T08:00:00Z to 2026-", "more than 100 years apart"}},
	}
}

// The 199,999-item List's error stays a screenful: the problems printed
// and the count of the rest, not a line per item.
func TestBoundedErrorIsAScreenful(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for range 5000 {
		b.WriteString("- {}\n")
	}
	file := filepath.Join(dir, "l.yaml")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	code, stdout, stderr := runCmd("plan", "-f", file)
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, 21, stderr)
	require.Equal(t, fmt.Sprintf("... and %s more problems", "4,980"), lines[20])
}
