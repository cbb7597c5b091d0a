package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"10 pods running on 1 node(s)", "launch [default-00001] c6a.4xlarge spot", "ready  [default-00001] c6a.4xlarge: node initialized",
		"delete [default-00001]", "every node consolidated away", "instances still running: 0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
