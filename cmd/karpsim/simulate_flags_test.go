package main

// scenarioFlags are the flags a scenario under testdata/scenarios runs
// with in TestSimulateGolden, beyond -f, --check and -o json: the Karpenter
// configuration its NAME.md describes.
var scenarioFlags = map[string][]string{
	"node-repair": {"--feature-gates", "NodeRepair=true"},
}
