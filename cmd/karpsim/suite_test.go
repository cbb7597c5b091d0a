package main

import (
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// What the package's tests share: the collector's pacing, the switch for
// the slow tests, and the output of command lines that several tests
// compare with, run once.

// TestMain lets the heap grow to five times the live objects (GOGC=400)
// below 1 GiB: the tests run hundreds of commands in one process, each
// building instance-type catalogs that are garbage once it returns, and
// collecting at GOGC=100 took a quarter of their CPU. (main's own pacing,
// adjustStartingHeap, is for one command a process: under hundreds it lets
// the heap reach gigabytes.) GOGC or GOMEMLIMIT in the environment leave
// the collector as they set it.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(1 << 30)
	}
	os.Exit(m.Run())
}

// slowEnv is the environment variable that runs the slow tests (the
// example sweep run whole, besides its shards); .ci/run sets it.
const slowEnv = "KARPSIM_SLOW_TESTS"

// slowTests says whether the slow tests run: with KARPSIM_SLOW_TESTS=1
// and without -short.
func slowTests() bool {
	return !testing.Short() && os.Getenv(slowEnv) == "1"
}

// skipUnlessSlow skips a slow test, saying how to run it and what checks
// the same in the meantime.
func skipUnlessSlow(t *testing.T, meanwhile string) {
	t.Helper()
	if !slowTests() {
		t.Skipf("slow: runs with %s=1 (as .ci/run sets) and without -short; meanwhile %s", slowEnv, meanwhile)
	}
}

// sharedRun is one command line's exit code and output, run once.
type sharedRun struct {
	once           sync.Once
	code           int
	stdout, stderr string
}

// sharedRuns holds the sharedRun of each working directory and command
// line.
var sharedRuns sync.Map

// runShared is runCmd for a command line that reads only the repository's
// files: the first test to run it in a working directory runs it, and the
// others, in parallel or later, get its exit code and output. That one
// command line gives the same output every time it runs is for
// TestPlanIsDeterministic and TestSimulateJSON to check.
func runShared(args ...string) (int, string, string) {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	v, _ := sharedRuns.LoadOrStore(wd+"\x00"+strings.Join(args, "\x00"), new(sharedRun))
	r := v.(*sharedRun)
	r.once.Do(func() { r.code, r.stdout, r.stderr = runCmd(args...) })
	return r.code, r.stdout, r.stderr
}

// shortSample is paths, or under -short the first and every fourth after
// it: the tests that run every golden scenario another way (from standard
// input, from a cluster) check a sample with -short, which the race
// detector's run in CI uses; the golden tests check every scenario.
func shortSample(t *testing.T, paths []string) []string {
	t.Helper()
	if !testing.Short() {
		return paths
	}
	var sample []string
	for i := 0; i < len(paths); i += 4 {
		sample = append(sample, paths[i])
	}
	t.Logf("-short: %d of the %d scenarios", len(sample), len(paths))
	return sample
}
