package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "10 of 10 pods scheduled on 1 new node(s)") {
		t.Errorf("unexpected plan:\n%s", out.String())
	}
}
