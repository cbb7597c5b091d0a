//go:build race

package manifests

// raceEnabled: the race detector changes what the heap holds and slows
// decoding several times.
const raceEnabled = true
