package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/sweep"
)

const exampleSweep = "testdata/nodepool-designs.sweep.yaml"

// TestSweepGolden runs the example sweep in three shards and whole, from
// the root of the repository: the parts are testdata/sweeps/parts/, the
// table testdata/sweeps/nodepool-designs.expected.txt (all rewritten by
// -update), and the merged parts print exactly what the whole sweep
// prints, as JSON and as the table. Shard 0 and the table are
// TestExamplesRun's examples, run once for both. Shard 0 always runs; the
// other shards (with one worker) and the whole sweep (two more sweeps'
// worth of simulations) are slow tests, run by -update too: meanwhile the
// golden parts merge into the golden table.
func TestSweepGolden(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	whole := slowTests() || *update
	var parts []string
	for i := range 3 {
		file := filepath.Join("testdata", "sweeps", "parts", fmt.Sprintf("nodepool-designs-%d.json", i))
		parts = append(parts, file)
		if i > 0 && !whole {
			continue
		}
		args := []string{"sweep", "-f", exampleSweep, "--shard", fmt.Sprintf("%d/3", i)}
		if i > 0 {
			args = append(args, "--workers", "1")
		}
		code, part, stderr := runShared(args...)
		require.Equal(t, 0, code, stderr)
		matchGolden(t, file, []byte(part), "shard part")
	}
	golden := filepath.Join("testdata", "sweeps", "nodepool-designs.expected.txt")
	code, mergedTable, stderr := runCmd(append([]string{"sweep", "merge"}, parts...)...)
	require.Equal(t, 0, code, stderr)
	if whole {
		code, table, stderr := runShared("sweep", "-f", exampleSweep)
		require.Equal(t, 0, code, stderr)
		matchGolden(t, golden, []byte(table), "sweep table")
		assert.Equal(t, table, mergedTable)
		code, wholeJSON, stderr := runCmd("sweep", "-f", exampleSweep, "-o", "json")
		require.Equal(t, 0, code, stderr)
		code, merged, stderr := runCmd(append([]string{"sweep", "merge", "-o", "json"}, parts...)...)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, wholeJSON, merged, "the merged parts are the whole sweep")
	} else {
		matchGolden(t, golden, []byte(mergedTable), "merged table of the golden parts")
	}

	code, _, stderr = runCmd("sweep", "merge", parts[0], parts[2])
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "runs are missing")
}

// A sweep whose runs fail reports them on their rows, still runs the
// others, and exits 1; -o csv prints every run.
func TestSweepReportsFailedRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario, err := os.ReadFile(filepath.Join("..", "..", "testdata", "scenarios", "default.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "default.yaml"), scenario, 0o644))
	file := filepath.Join(dir, "sweep.yaml")
	require.NoError(t, os.WriteFile(file, []byte("scenarios: [default.yaml]\nseeds: [1, 2]\nvariants:\n- {name: ok}\n"+
		"- {name: typo, nodePools: {defualt: {spec: {weight: 5}}}}\n"), 0o644))
	code, stdout, stderr := runCmd("sweep", "-f", file, "-o", "csv")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "2 of 4 runs failed")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 5)
	assert.True(t, strings.HasPrefix(lines[0], "index,scenario,variant,seed,total_cost"))
	assert.Contains(t, lines[3], `nodePools: the scenario has no NodePool ""defualt""`)
	code, stdout, _ = runCmd("sweep", "-f", file)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "failed: ")
	assert.Contains(t, stdout, "* ok")
}

func TestSweepCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep"}, 2, "-f SWEEP is required"},
		{[]string{"sweep", "-f", "x.yaml", "--shard", "3/3"}, 2, `--shard "3/3": want I/N with 0 <= I < N`},
		{[]string{"sweep", "-f", "x.yaml", "--shard", "0/2", "-o", "table"}, 2, "a shard prints a partial result"},
		{[]string{"sweep", "-f", "x.yaml", "-o", "xml"}, 2, `-o "xml"`},
		{[]string{"sweep", "-f", "missing.yaml"}, 1, "missing.yaml"},
		{[]string{"sweep", "-f", "x.yaml", "--emit-job"}, 2, "--emit-job needs --image"},
		{[]string{"sweep", "merge"}, 2, "requires at least 1 arg"},
	} {
		code, _, stderr := runCmd(c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}
}

// TestSweepEmitJob decodes the emitted manifests as the API server would,
// checks the Indexed Job, and lays the ConfigMap's files out as the pod's
// volume does: the sweep found there runs, shard by shard, into what the
// sweep itself gives.
func TestSweepEmitJob(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	code, out, stderr := runCmd("sweep", "-f", exampleSweep, "--emit-job", "--image", "example.com/karpsim:v1",
		"--parallelism", "2", "--shards", "4", "--namespace", "sims", "--results-pvc", "sweep-results")
	require.Equal(t, 0, code, stderr)
	scheme := runtime.NewScheme()
	require.NoError(t, corev1.AddToScheme(scheme))
	require.NoError(t, batchv1.AddToScheme(scheme))
	decode := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer().Decode
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(out)))
	var cm *corev1.ConfigMap
	var job *batchv1.Job
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		obj, _, err := decode(doc, nil, nil)
		require.NoError(t, err, string(doc))
		switch o := obj.(type) {
		case *corev1.ConfigMap:
			cm = o
		case *batchv1.Job:
			job = o
		}
	}
	require.NotNil(t, cm)
	require.NotNil(t, job)
	assert.Equal(t, batchv1.IndexedCompletion, *job.Spec.CompletionMode)
	assert.Equal(t, int32(4), *job.Spec.Completions)
	assert.Equal(t, int32(2), *job.Spec.Parallelism)
	assert.Equal(t, "sims", job.Namespace)
	pod := job.Spec.Template.Spec
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	assert.Equal(t, "example.com/karpsim:v1", c.Image)
	assert.Contains(t, strings.Join(c.Args, " "), "--shard $(SHARD_INDEX)/4 -o json --output-file /results/part-$(SHARD_INDEX).json")
	require.Len(t, c.Env, 1)
	assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", c.Env[0].ValueFrom.FieldRef.FieldPath)
	require.Len(t, pod.Volumes, 2)
	assert.Equal(t, cm.Name, pod.Volumes[0].ConfigMap.Name)
	assert.Equal(t, "sweep-results", pod.Volumes[1].PersistentVolumeClaim.ClaimName)

	// The volume as the pod sees it.
	root := t.TempDir()
	for _, item := range pod.Volumes[0].ConfigMap.Items {
		path := filepath.Join(root, filepath.FromSlash(item.Path))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(cm.Data[item.Key]), 0o644))
	}
	sweepFile := strings.TrimPrefix(c.Args[2], sweepMount+"/")
	var costs [][]float64
	var scenarios [][]string
	for _, file := range []string{exampleSweep, filepath.Join(root, sweepFile)} {
		// Shard 1 of 12 is runs 1 and 13: one of each scenario, which
		// stand for the others.
		code, part, stderr := runCmd("sweep", "-f", file, "--shard", "1/12")
		require.Equal(t, 0, code, stderr)
		var res sweep.Result
		require.NoError(t, yaml.Unmarshal([]byte(part), &res))
		var perRun []float64
		var names []string
		for _, r := range res.Runs {
			perRun = append(perRun, r.Summary.TotalCost)
			names = append(names, filepath.Base(r.Scenario))
		}
		costs = append(costs, perRun)
		scenarios = append(scenarios, names)
	}
	assert.Equal(t, []string{"daily-traffic.yaml", "spot-storm.yaml"}, scenarios[0])
	assert.Equal(t, scenarios[0], scenarios[1])
	assert.Equal(t, costs[0], costs[1], "the Job's pods run the same sweep")
	assert.NotEmpty(t, bytes.TrimSpace([]byte(out)))
}

// `report` recognises each kind of result and writes one HTML file.
func TestReportCommand(t *testing.T) {
	t.Parallel()
	code, sim, stderr := runCmd("simulate", "-o", "json")
	require.Equal(t, 0, code, stderr)
	code, html, stderr := runWithStdin(sim, "report")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, html, "<title>karpsim simulation: default</title>")
	assert.Contains(t, html, "<svg")

	file := filepath.Join(t.TempDir(), "report.html")
	code, stdout, stderr := runWithStdin(sim, "report", "--output-file", file)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	written, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, html, string(written))

	part := filepath.Join("..", "..", "testdata", "sweeps", "parts", "nodepool-designs-0.json")
	code, html, stderr = runCmd("report", "-f", part)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, html, "<title>karpsim sweep: nodepool-designs</title>")

	code, _, stderr = runWithStdin(`{"kind": "Pod"}`, "report")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "<stdin>: not a result of simulate, compare or sweep")

	reportFile := filepath.Join(t.TempDir(), "sim.html")
	code, _, stderr = runCmd("simulate", "--report", reportFile)
	require.Equal(t, 0, code, stderr)
	written, err = os.ReadFile(reportFile)
	require.NoError(t, err)
	assert.Contains(t, string(written), "karpsim simulation: default")
}
