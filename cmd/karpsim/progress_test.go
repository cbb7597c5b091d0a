package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestProgressLineIsThrottledAndErased(t *testing.T) {
	var out bytes.Buffer
	wall := time.Unix(0, 0)
	p := newProgressLine(&out, func() time.Time { return wall })
	p.report(0, 24*time.Hour)
	p.report(time.Hour, 24*time.Hour) // same wall instant: not redrawn
	wall = wall.Add(time.Second)
	p.report(12*time.Hour+1500*time.Millisecond, 24*time.Hour)
	p.report(24*time.Hour, 24*time.Hour)
	lines := strings.Split(out.String(), "\r\033[K")
	assert.Equal(t, []string{"", "simulating: 0s of 24h0m0s (0%)", "simulating: 12h0m1s of 24h0m0s (50%)", ""}, lines)
}

func TestProgressOnlyOnTerminals(t *testing.T) {
	assert.False(t, isTerminal(&bytes.Buffer{}))
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	assert.False(t, isTerminal(f), "a regular file is not a terminal")
}
