package manifests

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/internal/clusterdump"
)

func TestLimitsRefuseTheAbsurd(t *testing.T) {
	var dump bytes.Buffer
	require.NoError(t, clusterdump.PendingPods(&dump, clusterdump.YAML, 5, 2))

	l := newLoader()
	l.limits = limits{bytes: 1 << 10}
	l.decodeReader("pods.yaml", bytes.NewReader(dump.Bytes()), 0)
	_, err := l.done()
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.EqualError(t, err, "pods.yaml: more than 1 KiB: karpsim reads at most 1 KiB from one file or stream (a dump of a real cluster is far smaller)")

	for _, reference := range []bool{false, true} {
		l = newLoader()
		l.limits, l.reference = limits{objects: 4}, reference
		l.decodeReader("pods.yaml", bytes.NewReader(dump.Bytes()), 0)
		set, err := l.done()
		assert.ErrorIs(t, err, ErrTooLarge)
		assert.EqualError(t, err, "pods.yaml: document 1 (line 1): more than 4 objects: karpsim reads at most 4 in one go (a dump of a real cluster has far fewer)")
		assert.Empty(t, set.Pods)
	}

	l = newLoader()
	l.limits = limits{objects: 2}
	l.decodeReader("objects.yaml", strings.NewReader("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\n"), 0)
	set, err := l.done()
	assert.EqualError(t, err, "objects.yaml: document 3 (line 9): more than 2 objects: karpsim reads at most 2 in one go (a dump of a real cluster has far fewer)")
	assert.Len(t, set.Pods, 2)
}

// The defaults admit a real cluster's dump, and say what they are.
func TestDefaultLimits(t *testing.T) {
	assert.Equal(t, int64(1<<30), newLoader().limits.maxBytes())
	assert.Equal(t, 200_000, newLoader().limits.maxObjects())
	assert.Equal(t, "1 GiB", formatBytes(MaxStreamBytes))
}

// LoadReader reads standard input or a pipe as Load reads a file.
func TestLoadReader(t *testing.T) {
	var dump bytes.Buffer
	require.NoError(t, clusterdump.PendingPods(&dump, clusterdump.JSON, 7, 2))
	set, err := LoadReader("-", bytes.NewReader(dump.Bytes()))
	require.NoError(t, err)
	require.Len(t, set.Pods, 7)
	src, _ := set.SourceOf(set.Pods[6])
	assert.Equal(t, "-:1 item 7", src.String())
}
