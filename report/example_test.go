package report_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"

	"github.com/karpsim/karpsim/report"
	"github.com/karpsim/karpsim/simulator"
)

// A simulation's report: run a scenario, hand its result to Simulate and
// write the bytes where a person will open them (karpsim report and
// simulate --report write them to a file). The page is self-contained:
// its charts are inline SVG and it loads nothing from the network.
func ExampleSimulate() {
	sc, err := simulator.ParseScenario([]byte(`
name: inflate
seed: 1
duration: 30m
inline: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: inflate}
  spec:
    replicas: 0
    selector: {matchLabels: {app: inflate}}
    template:
      metadata: {labels: {app: inflate}}
      spec:
        containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
steps:
- {at: 0s, scale: {deployment: inflate, replicas: 10}}
- {at: 15m, scale: {deployment: inflate, replicas: 0}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := simulator.Run(context.Background(), sc, simulator.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	html, err := report.Simulate(res)
	if err != nil {
		fmt.Println(err)
		return
	}
	// os.WriteFile("inflate.html", html, 0o644) would save it.
	title := regexp.MustCompile(`<title>([^<]*)</title>`).FindSubmatch(html)
	fmt.Printf("%s\n", title[1])
	fmt.Println("charts:", bytes.Count(html, []byte("<svg")))
	fmt.Println("loads from the network:", regexp.MustCompile(`(src|href)="https?:`).Match(html))
	// Output:
	// karpsim simulation: inflate
	// charts: 12
	// loads from the network: false
}
