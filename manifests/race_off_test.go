//go:build !race

package manifests

const raceEnabled = false
